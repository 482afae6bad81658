import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../src/core/config.js';
import { redactUrl } from '../src/core/runtime/logger.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ HOST: '127.0.0.1', PORT: 4000, DATA_DIR: '.data', introspection: true, JOBS_WORKER: true });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ MASTER_KEY: 'short' }, 'MASTER_KEY'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ TLS_CERT_FILE: 'cert.pem' }, 'TLS_KEY_FILE'],
  ])('names the bad variable in %j', (env, name) => {
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ MASTER_KEY: '' }).MASTER_KEY).toBeUndefined();
  });

  it('keeps secrets in query strings out of log lines', () => {
    expect(redactUrl('/api/login/delete?username=a&masterkey=s3cret')).toBe('/api/login/delete?username=a&masterkey=[redacted]');
  });
});
