import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { SDL_FILE, schemaSdl } from '../src/http/schema-sdl.js';

describe('the checked-in GraphQL schema', () => {
  it(`is the schema the service serves (after a schema change: npm run schema:sdl, then commit ${SDL_FILE})`, async () => {
    expect(readFileSync(SDL_FILE, 'utf8')).toBe(await schemaSdl());
  });
});
