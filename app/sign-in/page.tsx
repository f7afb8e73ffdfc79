import type { Metadata } from "next";
import { AuthForm } from "@/components/auth/auth-form";

export const metadata: Metadata = { title: "登录 · 知识库助手" };

export default function SignInPage() {
  return <AuthForm mode="sign-in" />;
}
