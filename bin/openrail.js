#!/usr/bin/env node
// openrail runs its TypeScript sources directly through tsx (docs/decisions/0002-run-typescript-with-tsx.md).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
