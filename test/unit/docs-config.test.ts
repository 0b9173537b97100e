import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CONFIGURATION_DOC, configRows, renderConfigurationDoc } from '../../scripts/docs-config';

describe('docs/configuration.md, generated from the environment schema', () => {
  it('is current: npm run docs:config would write the same file', () => {
    const current = readFileSync(CONFIGURATION_DOC, 'utf8') === renderConfigurationDoc(configRows());
    // Says the fix instead of diffing two 250-line files.
    if (!current) throw new Error('docs/configuration.md is not current with src/config/environment.ts: run npm run docs:config and commit it');
    expect(current).toBe(true);
  });

  it('refuses a variable without a description, naming it', () => {
    const schema = z.object({
      DOCUMENTED: z.string().default('x').describe('Something.'),
      FORGOTTEN_SETTING: z.string().default('y'),
    });
    expect(() => configRows(schema)).toThrow(/no description for FORGOTTEN_SETTING\./);
  });

  it('finds a description wherever it sits in the chain, and lists one without a group under Other', () => {
    const schema = z.object({
      BEFORE_DEFAULT: z.string().describe('Described before its default.').default('a'),
      FLAG: z
        .enum(['true', 'false'])
        .transform((value) => value === 'true')
        .default(true)
        .meta({ group: 'events', description: 'A flag.' }),
      LIST: z
        .string()
        .transform((value) => value.split(','))
        .prefault('1s,2s')
        .meta({ group: 'events', description: 'A list.' }),
      LEVEL: z.enum(['info', 'debug']).default('info').meta({ group: 'events', description: 'A level.' }),
      OPTIONAL: z.string().optional().meta({ group: 'events', description: 'Optional.', unset: 'off' }),
      REQUIRED: z.string().meta({ group: 'keys', description: 'Needed.' }),
    });
    const rows = configRows(schema).filter((row) => !row.name.startsWith('TEMPORAL_'));
    expect(rows).toEqual([
      { name: 'BEFORE_DEFAULT', section: 'Other', defaultText: '`a`', description: 'Described before its default.' },
      { name: 'FLAG', section: 'Events and webhooks', defaultText: '`true`', description: 'A flag.' },
      { name: 'LIST', section: 'Events and webhooks', defaultText: '`1s,2s`', description: 'A list.' },
      { name: 'LEVEL', section: 'Events and webhooks', defaultText: '`info`', description: 'A level. One of `info`, `debug`.' },
      { name: 'OPTIONAL', section: 'Events and webhooks', defaultText: 'off', description: 'Optional.' },
      { name: 'REQUIRED', section: 'Keys and encryption', defaultText: '**required**', description: 'Needed.' },
    ]);
    const markdown = renderConfigurationDoc(rows);
    expect(markdown).toContain('| `OPTIONAL` | off | Optional. |');
    expect(markdown.indexOf('## Keys and encryption')).toBeLessThan(markdown.indexOf('## Events and webhooks'));
    expect(markdown.indexOf('## Events and webhooks')).toBeLessThan(markdown.indexOf('## Other'));
  });
});
