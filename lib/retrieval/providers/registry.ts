// Provider registry (SPEC §8): the built-in KB provider first, then external providers registered
// at start-up. Every provider is validated when registered; keys are unique; close() runs once.
import { validateProvider, ProviderValidationError, type BuiltinSource, type KnowledgeProvider, type ProviderDescription } from "./protocol";

export type RegisteredProvider =
  | { provider: KnowledgeProvider; description: ProviderDescription; builtin: false }
  | { provider: BuiltinSource; description: ProviderDescription; builtin: true };

export class ProviderRegistry {
  private readonly entries: RegisteredProvider[] = [];
  private closed: Promise<void> | null = null;

  constructor(builtin?: BuiltinSource) {
    if (builtin) {
      const description = validateProvider(builtin, "built-in provider", { builtin: true });
      this.entries.push({ provider: builtin, description, builtin: true });
    }
  }

  /** Registers an external provider; throws ProviderValidationError with a clear message. */
  register(provider: KnowledgeProvider): RegisteredProvider {
    if (this.closed) throw new ProviderValidationError("registry is closed");
    const description = validateProvider(provider, "provider");
    if (this.entries.some((e) => e.description.key === description.key)) {
      throw new ProviderValidationError(`provider key "${description.key}" is registered twice`);
    }
    const entry = { provider, description, builtin: false as const };
    this.entries.push(entry);
    return entry;
  }

  list(): readonly RegisteredProvider[] {
    return this.entries;
  }

  external(): Extract<RegisteredProvider, { builtin: false }>[] {
    return this.entries.filter((e): e is Extract<RegisteredProvider, { builtin: false }> => !e.builtin);
  }

  get(key: string): RegisteredProvider | undefined {
    return this.entries.find((e) => e.description.key === key);
  }

  /** Capability gating: what is configured, as reported to the UI (nothing is faked). */
  describeAll(): ProviderDescription[] {
    return this.entries.map((e) => e.description);
  }

  /** Calls every provider's close() once (later calls return the same promise); errors are collected, not thrown. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      await Promise.allSettled(this.entries.map(async (e) => e.provider.close?.()));
    })();
    return this.closed;
  }
}
