/**
 * Route schemas compiled when a route first needs them (issue 54, "Memory"; docs/scaling.md). Fastify
 * compiles every route's request validators (Ajv) and response serialisers (fast-json-stringify) as
 * the route is added: for 275 operations that is generated code and schema state a serving process
 * carries from its start, though most processes answer a handful of routes. Here Fastify's own
 * compilers, with the options it gives them, are wrapped so that each route's function is compiled
 * on its first call and kept from then on; what it accepts, refuses and writes is the same.
 *
 * A schema the compilers would reject is then found at its route's first request instead of at the
 * start: `compileAll` compiles every pending one, and the route inventory test calls it, so a bad
 * schema still fails a test before it can ship.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
/** A route's compiler as Fastify calls it: a route and a part of it in, a function out. */
type Compiler<F> = (route: unknown) => F;
type Factory<F> = (externalSchemas: unknown, options: unknown) => Compiler<F>;
type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type Serialize = (data: unknown) => string;

export interface LazySchemas {
  compilersFactory: CompilersFactory;
  /** Compiles every schema not compiled yet; throws what the compilers throw. */
  compileAll(): void;
  /** Schemas handed out and not yet compiled (for the tests). */
  readonly pending: number;
}

/** The lazy schemas of each app buildApp made, for the tests that compile them all. */
export const schemasOf = new WeakMap<FastifyInstance, LazySchemas>();

export function lazySchemas(): LazySchemas {
  const pending = new Set<() => void>();
  /** `compile` run once, on the first call of what it makes (or by compileAll). */
  const once = <F>(compile: () => F) => {
    let made: F | undefined;
    const get = (): F => {
      if (made === undefined) {
        made = compile();
        pending.delete(force);
      }
      return made;
    };
    const force = () => void get();
    pending.add(force);
    return get;
  };
  const validators = AjvCompiler() as unknown as Factory<Validate>;
  const serializers = SerializerSelector() as unknown as Factory<Serialize>;
  const buildValidator: Factory<Validate> = (externalSchemas, options) => {
    const compilerOf = validators(externalSchemas, options);
    return (route) => {
      const real = once(() => compilerOf(route));
      // Fastify reads the complaints from the function it called, after the call.
      const validate: Validate = (data) => {
        const fn = real();
        const result = fn(data);
        validate.errors = fn.errors;
        return result;
      };
      return validate;
    };
  };
  const buildSerializer: Factory<Serialize> = (externalSchemas, options) => {
    const compilerOf = serializers(externalSchemas, options);
    return (route) => {
      const real = once(() => compilerOf(route));
      return (data) => real()(data);
    };
  };
  return {
    compilersFactory: { buildValidator, buildSerializer } as unknown as CompilersFactory,
    compileAll() {
      for (const force of [...pending]) force();
    },
    get pending() {
      return pending.size;
    },
  };
}
