import type { AuthPlane, PlaneName } from '../http/auth/principal.ts';
import { publicPlane } from '../http/auth/principal.ts';
import type { HolderRecords } from '../ports/holder-records.ts';
import type { Job } from './jobs.ts';
import type { Built, Context, Daemon, Module, StoreClass } from './module.ts';

/** The kernel's part of every module's context; `use` and `store` are the registry's. */
export type BaseContext = Omit<Context, 'use' | 'store' | 'viewsOf'>;

/**
 * Builds modules on demand, each at most once, and finds the module that provides a plane. Once
 * the service has started it is sealed: a module that was not needed by then is never built.
 */
export class ModuleRegistry {
  private readonly built = new Map<Module, Promise<Built<unknown>>>();
  private readonly order: Module[] = [];
  private sealed = false;
  private readonly owners = new Map<StoreClass, Module>();
  private readonly stores = new Map<StoreClass, unknown>();

  constructor(
    private readonly modules: readonly Module[],
    private readonly base: BaseContext,
    private readonly makeStore: <T>(store: StoreClass<T>) => T,
  ) {
    const names = new Set<string>();
    for (const m of modules) {
      if (names.has(m.name)) throw new Error(`two modules are named ${m.name}`);
      names.add(m.name);
      for (const store of m.owns ?? []) {
        const owner = this.owners.get(store);
        if (owner) throw new Error(`${store.name} is owned by ${owner.name} and ${m.name}; a store has one owner`);
        this.owners.set(store, m);
      }
      if (m.views && !m.owns?.includes(m.views)) {
        throw new Error(`module ${m.name} publishes ${m.views.name} as its views but does not own it`);
      }
      if (m.holderRecords && !m.owns?.includes(m.holderRecords)) {
        throw new Error(`module ${m.name} publishes ${m.holderRecords.name} as its holder records but does not own it`);
      }
    }
  }

  /** The context one module builds from: its `store` builds only what the module owns. */
  private contextOf(module: Module): Context {
    return {
      ...this.base,
      use: async (other) => (await this.build(other)).services,
      viewsOf: (other) => this.viewsOf(other),
      store: <T>(store: StoreClass<T>): T => {
        if (!module.owns?.includes(store)) {
          const owner = this.owners.get(store);
          throw new Error(
            owner
              ? `module ${module.name} builds ${store.name}, which belongs to ${owner.name}: use ${owner.name}'s views or services`
              : `module ${module.name} builds ${store.name}, which no module owns: name it in the owner's \`owns\``,
          );
        }
        return this.storeOf(store);
      },
    };
  }

  /** The views a module publishes (`Module.views`), built once, without building the module. */
  viewsOf<V>(module: Module<unknown, V>): V {
    if (!this.modules.includes(module as Module)) throw new Error(`module ${module.name} is not in the module list`);
    if (!module.views) throw new Error(`module ${module.name} publishes no views`);
    return this.storeOf(module.views);
  }

  /**
   * Every module's part of the holder-data registry (`Module.holderRecords`), built alone, without
   * building the modules; refused when a part runs the entries of another owner than its module.
   */
  holderRecords(): HolderRecords[] {
    return this.modules.flatMap((m) => {
      if (!m.holderRecords) return [];
      const part = this.storeOf(m.holderRecords);
      if (part.owner !== m.name) throw new Error(`module ${m.name} publishes the holder records of ${part.owner}`);
      return [part];
    });
  }

  /** A store, built once on the database whoever asks. */
  private storeOf<T>(store: StoreClass<T>): T {
    let built = this.stores.get(store) as T | undefined;
    if (built === undefined) {
      built = this.makeStore(store);
      this.stores.set(store, built);
    }
    return built;
  }

  build<S>(module: Module<S>): Promise<Built<S>> {
    let built = this.built.get(module as Module);
    if (!built) {
      if (this.sealed) throw new Error(`module ${module.name} is used after start; modules are built while the service starts`);
      if (!this.modules.includes(module as Module)) throw new Error(`module ${module.name} is not in the module list`);
      this.order.push(module as Module);
      built = Promise.resolve(module.build(this.contextOf(module as Module))) as Promise<Built<unknown>>;
      this.built.set(module as Module, built);
    }
    return built as Promise<Built<S>>;
  }

  /** The planes the routes name, building the modules that provide them. */
  async planesFor(names: readonly PlaneName[]): Promise<Map<PlaneName, AuthPlane>> {
    const planes = new Map<PlaneName, AuthPlane>([['public', publicPlane]]);
    for (const name of new Set(names)) {
      if (planes.has(name)) continue;
      const provider = this.modules.find((m) => m.planes?.includes(name));
      if (!provider) throw new Error(`no module provides the ${name} plane`);
      const plane = (await this.build(provider)).planes?.[name];
      if (!plane) throw new Error(`module ${provider.name} declares the ${name} plane but did not build it`);
      planes.set(name, plane);
    }
    return planes;
  }

  seal(): void {
    this.sealed = true;
  }

  /** The services of a module that was built (tests reach a dispatcher this way); never builds one. */
  async services<S>(module: Module<S>): Promise<S> {
    const built = this.built.get(module as Module);
    if (!built) throw new Error(`module ${module.name} was not built`);
    return ((await built) as Built<S>).services;
  }

  /** The daemons of every module built, in the order they were built. */
  async daemons(): Promise<Daemon[]> {
    const built = await Promise.all(this.order.map((m) => this.built.get(m)));
    return built.flatMap((b) => b?.daemons ?? []);
  }

  /** The jobs of every module built, in the order they were built. */
  async jobs(): Promise<Job[]> {
    const built = await Promise.all(this.order.map((m) => this.built.get(m)));
    return built.flatMap((b) => b?.jobs ?? []);
  }
}
