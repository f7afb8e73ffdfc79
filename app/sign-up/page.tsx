import type { Metadata } from "next";
import { AuthForm } from "@/components/auth/auth-form";

export const metadata: Metadata = { title: "注册 · 知识库助手" };

export default function SignUpPage() {
  return <AuthForm mode="sign-up" />;
}
