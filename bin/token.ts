/**
 * npm run token -- [--sub ID] [--role admin]... [--expires-in 1h]: mints a bearer token for Area A with the configured
 * secret. Without options: an administrator token valid for 12 hours.
 */
import { parseArgs } from 'node:util';
import { ADMIN_ROLE, createTokenService } from '../lib/auth/auth.ts';
import { prepareProcess } from './process.ts';

const { values } = parseArgs({
  options: {
    sub: { type: 'string', default: 'admin' },
    role: { type: 'string', multiple: true },
    'expires-in': { type: 'string', default: '12h' },
  },
});
const { config } = prepareProcess('token');
const roles = values.role ?? (values.sub === 'admin' ? [ADMIN_ROLE] : []);
const token = createTokenService(config.jwt).mint(
  { sub: values.sub!, roles },
  { expiresIn: values['expires-in'] as `${number}h` },
);
console.log(token);
