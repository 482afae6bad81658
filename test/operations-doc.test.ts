import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { configReference, OPERATIONS_FILE, withConfigReference } from '../src/core/config-docs.js';
import { configSchema } from '../src/core/config.js';

describe('the configuration reference in OPERATIONS.md', () => {
  it(`is the one generated from the config schema (after a config change: npm run docs:config, then commit ${OPERATIONS_FILE})`, () => {
    const text = readFileSync(OPERATIONS_FILE, 'utf8');
    expect(text).toBe(withConfigReference(text));
  });

  it('lists every variable with a type, a default or "(unset)", and a description from its doc comment', () => {
    const rows = configReference().split('\n').slice(2);
    expect(rows).toHaveLength(Object.keys(configSchema.shape).length);
    for (const row of rows) {
      const [name, type, fallback, meaning] = row.split(' | ').map((cell) => cell.replace(/^\| |\|$/g, '').trim());
      expect({ name, type: Boolean(type), fallback: Boolean(fallback), meaning: meaning.length > 10 }).toEqual({ name, type: true, fallback: true, meaning: true });
    }
    expect(configReference()).toContain('| `PORT` | integer 0–65535 | `4000` | Port of the APIs, docs pages and health checks. |');
  });
});
