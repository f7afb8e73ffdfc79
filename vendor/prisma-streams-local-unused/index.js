export async function startLocalDurableStreamsServer() { throw new Error("`prisma dev` is not part of this project: use DATABASE_URL or the embedded database"); }
