import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The checkout's .labflow/ folder (LABFLOW_STATE_DIR wins), found from this file's location. */
export function stateDir(): string {
  if (process.env.LABFLOW_STATE_DIR) return process.env.LABFLOW_STATE_DIR;
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return resolve(dir, '.labflow');
}
