import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';

/**
 * /healthz: the process is up. /readyz: the database answers and the process is not shutting
 * down (503 otherwise; `draining` turns true first thing on SIGTERM, so a load balancer stops
 * sending before the port closes).
 */
export function mountHealth(app: FastifyInstance, orm: MikroORM, draining: () => boolean = () => false): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (draining()) return reply.code(503).header('connection', 'close').send({ status: 'shutting down' });
    try {
      await orm.em.getConnection().execute('SELECT 1');
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
}
