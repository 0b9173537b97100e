import { ConfigError, loadConfig } from '../../src/config/config';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('loadConfig', () => {
  it('parses defaults once from the environment', () => {
    const config = loadConfig({ PHI_ENCRYPTION_KEY: KEY });
    expect(config.api.port).toBe(8000);
    expect(config.management.port).toBe(8001);
    expect(config.temporal).toMatchObject({ address: '127.0.0.1:7233', namespace: 'labflow', uiUrl: 'http://127.0.0.1:8233' });
    expect(config.userDeletionGrace).toBe('7d');
    expect(config.phiEncryptionKey).toHaveLength(32);
  });

  it.each([
    [{ PHI_ENCRYPTION_KEY: 'short' }, 'PHI_ENCRYPTION_KEY'],
    [{ PHI_ENCRYPTION_KEY: KEY, USER_DELETION_GRACE: 'a week' }, 'USER_DELETION_GRACE'],
    [{ PHI_ENCRYPTION_KEY: KEY, API_PORT: '70000' }, 'API_PORT'],
    [{ PHI_ENCRYPTION_KEY: KEY, DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{}, 'PHI_ENCRYPTION_KEY'],
  ])('stops with a message naming the bad variable: %j', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`${name}:`));
  });
});
