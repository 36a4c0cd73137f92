/**
 * List operations for admins: trigger a rebuild of the index from the configured sources (the
 * same build as the operator command `aml build-index`), follow it, and see which version is in
 * service and which was refused. Not in the contract's table (docs/decisions.md).
 */
import { ApiError } from '../http/errors.js';
import type { Router } from '../http/router.js';
import type { IndexWatcher } from '../index/index-watcher.js';
import type { RebuildRunner } from '../index/rebuild-runner.js';
import { uuidParam } from './params.js';

export function adminRoutes(router: Router, rebuild: RebuildRunner, watcher: IndexWatcher): void {
  router.add({
    method: 'POST',
    path: '/v1/admin/lists/rebuild',
    summary: 'Rebuild the list index from the configured sources; the new version goes into service when it is published and verified',
    policy: 'Admin',
    tenantScoped: false,
    handle: async () => {
      const status = rebuild.trigger();
      return { status: 202, body: status, headers: { location: `/v1/admin/lists/rebuild/${status.id}` } };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/admin/lists/rebuild/:id',
    summary: 'A rebuild: state, the version it published, or why it failed',
    policy: 'Admin',
    tenantScoped: false,
    handle: async ({ params }) => {
      const id = uuidParam(params, 'id', 'rebuild');
      const status = rebuild.status(id);
      if (!status) throw new ApiError('not_found', `no rebuild ${id} (the service keeps the last ones since it started)`);
      return { status: 200, body: status };
    },
  });

  router.add({
    method: 'GET',
    path: '/v1/admin/lists/status',
    summary: 'The index version in service, the one published, the last switch and the last version refused; the latest rebuild',
    policy: 'Admin',
    tenantScoped: false,
    handle: async () => ({ status: 200, body: { index: watcher.status(), rebuild: rebuild.latest() ?? null } }),
  });
}
