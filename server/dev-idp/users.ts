/**
 * The development identity provider's user directory: a built-in list (or the `users` option),
 * optionally overlaid by a JSON file that is RE-READ on every lookup, so a test can create a
 * tenant, write the tenant id into the file and log in as that user without restarting anything.
 *
 * File format: a JSON array of users, or `{ "users": [...] }`. Each entry is matched to a base user
 * by `username` and overrides only the fields it gives (so `[{"username":"analyst","tenant_id":"t1"}]`
 * is enough to give the analyst a tenant); an entry with a new username adds a user and must give
 * `password` and `roles`. `"tenant_id": null` removes a tenant id. A missing file means "no overlay";
 * an unreadable or malformed file is an error (logins fail) rather than a silent fallback.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface DevUser {
  /** Login name typed into the form. */
  readonly username: string;
  readonly password: string;
  /** Copied into the access token's `roles` claim (admin, compliance_analyst, auditor, ...). */
  readonly roles: readonly string[];
  /** Copied into the access token's `tenant_id` claim when set. */
  readonly tenant_id?: string | null;
  /** Subject (`sub`); defaults to the username. */
  readonly sub?: string;
  readonly name?: string;
  readonly email?: string;
}

/** Default users (documented in docs/identity-providers.md and the dev-idp README section). */
export const DEFAULT_DEV_USERS: readonly DevUser[] = Object.freeze([
  { username: 'admin', password: 'admin-password', roles: ['admin'], name: 'Dev Admin', email: 'admin@example.test' },
  {
    username: 'analyst',
    password: 'analyst-password',
    roles: ['compliance_analyst'],
    name: 'Dev Compliance Analyst',
    email: 'analyst@example.test',
  },
  { username: 'auditor', password: 'auditor-password', roles: ['auditor'], name: 'Dev Auditor', email: 'auditor@example.test' },
]);

export function subjectOf(user: DevUser): string {
  return user.sub ?? user.username;
}

export class UsersFileError extends Error {
  override readonly name = 'UsersFileError';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optString(entry: Record<string, unknown>, key: string, where: string): string | undefined {
  const v = entry[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') throw new UsersFileError(`${where}: "${key}" must be a non-empty string`);
  return v;
}

/** Parses one file entry into a partial user (fields present in the file only). */
function parseEntry(raw: unknown, where: string): { username: string; fields: Partial<Omit<DevUser, 'username'>> } {
  if (!isRecord(raw)) throw new UsersFileError(`${where}: must be an object`);
  const username = optString(raw, 'username', where);
  if (username === undefined) throw new UsersFileError(`${where}: "username" is required`);
  const fields: { -readonly [K in keyof Omit<DevUser, 'username'>]?: DevUser[K] } = {};
  const password = optString(raw, 'password', where);
  if (password !== undefined) fields.password = password;
  const sub = optString(raw, 'sub', where);
  if (sub !== undefined) fields.sub = sub;
  const name = optString(raw, 'name', where);
  if (name !== undefined) fields.name = name;
  const email = optString(raw, 'email', where);
  if (email !== undefined) fields.email = email;
  if (raw['roles'] !== undefined) {
    const roles = raw['roles'];
    if (!Array.isArray(roles) || !roles.every((r): r is string => typeof r === 'string' && r !== '')) {
      throw new UsersFileError(`${where}: "roles" must be an array of non-empty strings`);
    }
    fields.roles = [...roles];
  }
  // Accept tenantId as an alias; tenant_id wins.
  const tenantKey = raw['tenant_id'] !== undefined ? 'tenant_id' : raw['tenantId'] !== undefined ? 'tenantId' : undefined;
  if (tenantKey !== undefined) {
    const t = raw[tenantKey];
    if (t === null) fields.tenant_id = null;
    else if (typeof t === 'string' && t !== '') fields.tenant_id = t;
    else throw new UsersFileError(`${where}: "${tenantKey}" must be a non-empty string or null`);
  }
  return { username, fields };
}

function parseFile(text: string, path: string): Array<{ username: string; fields: Partial<Omit<DevUser, 'username'>> }> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsersFileError(`${path}: not valid JSON (${(err as Error).message})`);
  }
  const list = Array.isArray(json) ? json : isRecord(json) ? json['users'] : undefined;
  if (!Array.isArray(list)) throw new UsersFileError(`${path}: expected an array of users or {"users": [...]}`);
  return list.map((entry, i) => parseEntry(entry, `${path}[${i}]`));
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

export class UserDirectory {
  private readonly base: readonly DevUser[];

  constructor(
    base: readonly DevUser[] | undefined,
    private readonly file: string | undefined,
  ) {
    this.base = base ?? DEFAULT_DEV_USERS;
  }

  /** The current users: the base list overlaid by the file (read now). Throws UsersFileError. */
  async list(): Promise<DevUser[]> {
    const byName = new Map<string, DevUser>(this.base.map((u) => [u.username, u]));
    if (this.file !== undefined) {
      let text: string | undefined;
      try {
        text = await readFile(this.file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw new UsersFileError(`${this.file}: cannot be read (${(err as Error).message})`);
        }
      }
      if (text !== undefined) {
        for (const { username, fields } of parseFile(text, this.file)) {
          const prior = byName.get(username);
          if (prior) {
            byName.set(username, { ...prior, ...fields });
          } else {
            if (fields.password === undefined || fields.roles === undefined) {
              throw new UsersFileError(`${this.file}: new user "${username}" needs "password" and "roles"`);
            }
            byName.set(username, { ...fields, username, password: fields.password, roles: fields.roles });
          }
        }
      }
    }
    return [...byName.values()];
  }

  /** The user when the password matches, else undefined (constant-time comparison). */
  async authenticate(username: string, password: string): Promise<DevUser | undefined> {
    const user = (await this.list()).find((u) => u.username === username);
    // Compare against something even for an unknown user, so timing does not reveal usernames.
    const ok = timingSafeEqual(sha256(password), sha256(user?.password ?? '\u0000no-such-user'));
    return ok && user ? user : undefined;
  }

  async bySubject(sub: string): Promise<DevUser | undefined> {
    return (await this.list()).find((u) => subjectOf(u) === sub);
  }
}
