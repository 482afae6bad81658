import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';

/**
 * Where a request is, as far as a shutdown cares:
 * - `working`: our code runs for it (its hooks, its handler) — a shutdown waits for it, since
 *   closing the database under it would fail it half-way;
 * - `reading body`: it waits for its client to send the body (no code of ours runs until then);
 * - `handled`: its handler has returned and only the response remains to be written.
 */
type Stage = 'working' | 'reading body' | 'handled';

/**
 * The requests a shutdown must wait for. A request is counted from its first hook until its
 * response is sent or written; but some never get there once their client has gone:
 * - one whose body never arrives (the client disconnected half-way): a body stream that does not
 *   pass the connection's failure on (a `pipe`d limit) never ends, so its parser never answers;
 * - one whose async handler returned without answering (Fastify sends nothing once the client
 *   has gone), or that took the reply over (`reply.hijack()`: no onSend, and onResponse only if
 *   the response finished).
 * So a shutdown, once every connection is closed, waits only for the requests our code is still
 * working on, and forgets the others: nothing of ours runs for them any more.
 */
export class InFlightRequests {
  readonly #stages = new Map<FastifyRequest, Stage>();
  #working = 0;
  #allSettled: (() => void) | null = null;

  /** Counts every request from its first hook, and tracks where it is (see `Stage`). */
  install(server: FastifyInstance): void {
    // Callback-form hooks: an async hook costs a promise and a microtask hop on every request.
    server.addHook('preParsing', (request, _reply, payload, done) => {
      this.#move(request, 'reading body');
      done(null, payload);
    });
    server.addHook('preValidation', (request, _reply, done) => {
      this.#move(request, 'working');
      done();
    });
    // A client gone before its request was whole: unless our code runs for it, it is over now —
    // kept until a shutdown, every such request (a hostile client's thousands) would stay in memory.
    server.addHook('onRequestAbort', (request, done) => {
      if (this.#stages.get(request) !== 'working') this.#stages.delete(request);
      done();
    });
    // Every route's handler, as registered after this (all of them: this is installed first).
    server.addHook('onRoute', (route) => {
      route.handler = this.#tracked(route.handler);
    });
  }

  /** How many requests are counted (in any stage). */
  get size(): number {
    return this.#stages.size;
  }

  /** A request arrived (its first hook). */
  started(request: FastifyRequest): void {
    this.#stages.set(request, 'working');
    this.#working++;
  }

  /** Its response was sent (or written): it is over. */
  finished(request: FastifyRequest): void {
    const stage = this.#stages.get(request);
    if (stage === undefined) return;
    this.#stages.delete(request);
    if (stage === 'working') this.#leftWork();
  }

  /**
   * Resolves once no request is in our own work. Call it once every connection is closed: the
   * requests still waiting for a body or to be answered are forgotten (their clients are gone).
   * With `withinMs`, resolves after that long at the latest.
   */
  async settle(withinMs?: number): Promise<void> {
    for (const [request, stage] of this.#stages) if (stage !== 'working') this.#stages.delete(request);
    if (this.#working === 0) return;
    await new Promise<void>((resolve) => {
      this.#allSettled = resolve;
      if (withinMs !== undefined) setTimeout(resolve, withinMs).unref();
    });
  }

  #move(request: FastifyRequest, stage: Stage): void {
    const was = this.#stages.get(request);
    if (was === undefined || was === stage) return;
    this.#stages.set(request, stage);
    if (stage === 'working') this.#working++;
    else if (was === 'working') this.#leftWork();
  }

  #leftWork(): void {
    if (--this.#working === 0) this.#allSettled?.();
  }

  /**
   * The handler, unchanged for its caller. Its request is `handled` once the promise it returns
   * settles (Fastify then sends its value, unless the client has gone); a handler that returns no
   * promise works until it answers (onSend), unless it took the reply over (`reply.sent` then).
   */
  #tracked(handler: RouteHandlerMethod): RouteHandlerMethod {
    const handled = (request: FastifyRequest) => this.#move(request, 'handled');
    return function trackedHandler(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const result: unknown = handler.call(this, request, reply);
      if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
        const settled = () => handled(request);
        (result as PromiseLike<unknown>).then(settled, settled);
      } else if (reply.sent) {
        handled(request);
      }
      return result;
    };
  }
}
