/**
 * A tiny router plus the HTTP pipeline: request checks, body reading, request log, fault injection,
 * JSON errors. Hostile input of any kind gets a 4xx and the process stays up with bounded memory.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Auth, Core } from './core';
import { consoleAsset } from './console';
import { clientIsThisMachine } from './edge';
import { LIMITS, loggedHeaders, type LoggedRequest, type Traffic } from './traffic';
import { ApiError, sleep } from './util';

export interface Ctx {
	core: Core;
	req: IncomingMessage;
	method: string;
	path: string;
	query: URLSearchParams;
	headers: IncomingHttpHeaders;
	body: unknown;
	params: Record<string, string>;
	auth: Auth;
}
/** A JSON answer (`body`), or `raw` bytes with their own content-type header (for a static page). */
export interface Res {
	status: number;
	body?: unknown;
	raw?: string | Buffer;
	headers?: Record<string, string>;
}
export type Handler = (ctx: Ctx) => Res | Promise<Res>;

interface Route {
	method: string;
	re: RegExp;
	keys: string[];
	handler: Handler;
	auth: boolean;
}

export class Router {
	private routes: Route[] = [];
	/** `pattern` uses `:name` segments; `auth: false` for the operator API. */
	add(method: string, pattern: string, handler: Handler, auth = true): this {
		const keys: string[] = [];
		const re = new RegExp('^' + pattern.replace(/:([a-zA-Z]+)/g, (_m, k: string) => (keys.push(k), '([^/]+)')) + '/?$');
		this.routes.push({ method, re, keys, handler, auth });
		return this;
	}
	/** The one place routes are matched; a path segment with a broken `%` escape is a 400. */
	find(method: string, path: string): { route: Route; params: Record<string, string> } | 'method' | null {
		let methodMismatch = false;
		for (const r of this.routes) {
			const m = r.re.exec(path);
			if (!m) continue;
			if (r.method !== method) {
				methodMismatch = true;
				continue;
			}
			const params: Record<string, string> = Object.create(null) as Record<string, string>;
			r.keys.forEach((k, i) => (params[k] = decodeSegment(m[i + 1])));
			return { route: r, params };
		}
		return methodMismatch ? 'method' : null;
	}
}

function decodeSegment(s: string): string {
	try {
		return decodeURIComponent(s);
	} catch {
		throw new ApiError(400, 'invalid_path_encoding', { message: `Path segment ${JSON.stringify(s.slice(0, 100))} has a malformed %-escape` });
	}
}

/** The request target as origin-form (`/path?query`); anything else (absolute-form, `*`, garbage) is null. */
export function parseTarget(raw: string | undefined): { path: string; query: URLSearchParams } | null {
	if (!raw || raw[0] !== '/' || raw.startsWith('//')) return null;
	try {
		// A fixed origin prefix: `new URL(raw, base)` would read `//host` as an authority and can throw.
		const url = new URL('http://sandbox.invalid' + raw);
		return { path: url.pathname, query: url.searchParams };
	} catch {
		return null;
	}
}

/** True when the request announces a body (a non-zero Content-Length, or any Transfer-Encoding). */
function hasBody(req: IncomingMessage): boolean {
	if (req.headers['transfer-encoding'] !== undefined) return true;
	const len = req.headers['content-length'];
	return len !== undefined && len !== '0';
}

/** `application/json` (parameters allowed; a charset must be UTF-8). */
export function isJsonContentType(value: string | undefined): boolean {
	if (!value) return false;
	const [type, ...params] = value.split(';').map((s) => s.trim().toLowerCase());
	if (type !== 'application/json') return false;
	const charset = params.find((p) => p.startsWith('charset='));
	return !charset || /^charset="?utf-8"?$/.test(charset);
}

/** Deepest `[`/`{` nesting of a JSON text, counted without parsing (strings skipped). */
export function jsonDepth(text: string, stopAt = Infinity): number {
	let depth = 0;
	let max = 0;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (inString) {
			if (c === 92)
				i++; // backslash: skip the escaped character
			else if (c === 34) inString = false;
		} else if (c === 34) inString = true;
		else if (c === 123 || c === 91) {
			if (++depth > max) {
				max = depth;
				if (max > stopAt) return max;
			}
		} else if (c === 125 || c === 93) depth--;
	}
	return max;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

async function readBody(req: IncomingMessage, traffic: Traffic): Promise<Buffer> {
	const declared = Number(req.headers['content-length']);
	if (declared > LIMITS.maxBodyBytes)
		throw new ApiError(413, 'payload_too_large', { message: `Bodies are limited to ${LIMITS.maxBodyBytes} bytes` }, { connection: 'close' });
	const chunks: Buffer[] = [];
	let size = 0; // the bytes held, counted in traffic.inflightBodyBytes
	let received = 0;
	let refusal: ApiError | undefined;
	try {
		for await (const c of req) {
			const chunk = c as Buffer;
			received += chunk.length;
			if (received > LIMITS.maxBodyBytes)
				throw new ApiError(413, 'payload_too_large', { message: `Bodies are limited to ${LIMITS.maxBodyBytes} bytes` }, { connection: 'close' });
			// Refused already: the rest is read and dropped, not kept. Answering and closing while the
			// client still sends would reset the connection, and the client could lose the answer.
			if (refusal) continue;
			size += chunk.length;
			traffic.inflightBodyBytes += chunk.length;
			if (traffic.inflightBodyBytes > LIMITS.maxInflightBodyBytes) {
				refusal = new ApiError(
					429,
					'too_many_large_bodies',
					{ message: 'Too many large bodies are being received at once; retry' },
					{ connection: 'close', 'retry-after': '1' },
				);
				traffic.inflightBodyBytes -= size;
				size = 0;
				chunks.length = 0;
				continue;
			}
			chunks.push(chunk);
		}
		if (refusal) throw refusal;
		return Buffer.concat(chunks);
	} catch (e) {
		if (e instanceof ApiError) throw e;
		// The client aborted, or sent a malformed chunked body.
		throw new ApiError(
			400,
			'invalid_body',
			{ message: `The body could not be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` },
			{ connection: 'close' },
		);
	} finally {
		traffic.inflightBodyBytes -= size;
	}
}

/** Parses a JSON body; 400 for bad UTF-8, nesting deeper than LIMITS.maxDepth, or bad JSON. */
function parseJson(raw: Buffer, api: 'main' | 'rewards'): { text: string; value: unknown } {
	const extra = api === 'rewards' ? { path: '' } : {};
	let text: string;
	try {
		text = utf8.decode(raw);
	} catch {
		throw new ApiError(400, 'invalid_encoding', { message: 'Body is not valid UTF-8', ...extra });
	}
	if (text.trim() === '') return { text, value: undefined };
	if (jsonDepth(text, LIMITS.maxDepth) > LIMITS.maxDepth) {
		throw new ApiError(400, 'nesting_too_deep', { message: `Body nests deeper than ${LIMITS.maxDepth} levels`, ...extra });
	}
	try {
		return { text, value: JSON.parse(text) as unknown };
	} catch {
		throw new ApiError(400, 'invalid_json', { message: 'Body is not valid JSON', ...extra });
	}
}

function send(res: ServerResponse, r: Res): void {
	const headers: Record<string, string> = { ...(r.headers ?? {}) };
	if (r.raw !== undefined) {
		headers['content-length'] = String(Buffer.byteLength(r.raw));
		res.writeHead(r.status, headers);
		res.end(r.raw);
		return;
	}
	if (r.body === undefined) {
		res.writeHead(r.status, headers);
		res.end();
		return;
	}
	const text = JSON.stringify(r.body);
	headers['content-type'] = 'application/json; charset=utf-8';
	headers['content-length'] = String(Buffer.byteLength(text));
	res.writeHead(r.status, headers);
	res.end(text);
}

function errorRes(e: unknown, core: Core): Res {
	if (e instanceof ApiError) return { status: e.status, body: { error: e.error, ...e.extra }, headers: e.headers };
	core.log('unexpected error', e);
	return { status: 500, body: { error: 'internal_error', message: String((e as Error)?.message ?? e) } };
}

/**
 * Option rewordErrors: every refusal of the public APIs as another service that follows the spec
 * might word it, `{error: sentence}` alone (the spec's error body), with no code, message or path and
 * the sandbox's words in another order. A test double for clients that must not read the sandbox's
 * wording (the nodes decide from what they sent).
 */
export function reworded(r: Res): Res {
	if (r.status < 400 || !r.body || typeof r.body !== 'object') return r;
	const body = r.body as Record<string, unknown>;
	const said = [body.error, body.message].filter((part): part is string => typeof part === 'string').join(' ');
	const words = said
		.split(/[\s_]+/)
		.filter(Boolean)
		.reverse();
	return { ...r, body: { error: `Declined by the server, status ${r.status}${words.length ? `; reasons given: ${words.join(' ')}` : ''}` } };
}

/**
 * The operator API and the console have no key: only clients on this machine, and no cross-origin
 * browser page (Origin and Sec-Fetch-Site, when sent, must be this very origin). The Host is one of the
 * sandbox's own names already (makeHandler refuses any other first). One exception, `anyClient`: a post
 * to the outbox (the examples' stand-in for Slack), which n8n in a container sends from its own address;
 * it only adds a message, less than the public demo key already allows whoever reaches the port.
 */
function operatorRefusal(req: IncomingMessage, anyClient = false): string | null {
	if (!anyClient && !clientIsThisMachine(req.socket)) return 'operator API answers only clients on this machine';
	const origin = req.headers.origin;
	if (origin !== undefined && origin !== `http://${req.headers.host}`) return 'operator API refuses cross-origin requests';
	const site = req.headers['sec-fetch-site'];
	if (site !== undefined && site !== 'same-origin' && site !== 'none') return 'operator API refuses cross-site requests';
	return null;
}

/**
 * A request for a name that is not the sandbox's (a DNS-rebinding page, a proxy's mistake): 421 and a
 * fixed sentence, before anything is read, logged, counted or changed.
 */
function refuseForeignHost(res: ServerResponse): void {
	const text = 'Misdirected request: this sandbox answers only its own host names (add one with --public-host)\n';
	res.writeHead(421, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), connection: 'close' });
	res.end(text);
}

/** The header on every answer of both servers that marks them as the local sandbox (no real money). */
export const SANDBOX_HEADER = 'x-clearinghouse-sandbox';

export interface ServeOptions {
	api: 'main' | 'rewards';
	router: Router;
	operator?: Router;
	traffic: Traffic;
	core: Core;
	/** The Host header values this server answers (lower case, with the port): filled once it listens. */
	hostNames: ReadonlySet<string>;
}

/** The request handler of one public server (and, on the main server, the operator API under /sandbox). */
export function makeHandler(o: ServeOptions) {
	return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		// Every answer says it comes from the sandbox: nodes whose credential says `environment: sandbox` write only where they see it.
		res.setHeader(SANDBOX_HEADER, '1');
		if (!o.hostNames.has((req.headers.host ?? '').toLowerCase())) {
			if (o.core.opts.log) console.error(`[sandbox] ${o.api}: refused Host ${JSON.stringify(String(req.headers.host ?? '').slice(0, 100))} (421)`);
			return refuseForeignHost(res);
		}
		const method = (req.method ?? 'GET').toUpperCase();
		const target = parseTarget(req.url);
		const path = target?.path ?? String(req.url ?? '').slice(0, 200);
		const isOperator = !!o.operator && !!target && (path === '/sandbox' || path.startsWith('/sandbox/'));
		// The Date header tells the sandbox's clock (moved by the operator), as a real server's tells its own.
		res.setHeader('date', new Date(o.core.now()).toUTCString());
		const page = o.operator && target && method === 'GET' ? consoleAsset(path) : undefined;
		if (page) {
			// The browser console (sandbox/console/): served under the operator API's own rules.
			const why = operatorRefusal(req);
			res.writeHead(why ? 403 : 200, { 'content-type': why ? 'text/plain' : page.type, 'cache-control': 'no-store' });
			res.end(why ?? page.body);
			return;
		}
		let status = 500;
		let raw: Buffer | null = null;
		let parsedBody: unknown = null;
		try {
			const r = await (async (): Promise<Res> => {
				if (!target)
					return { status: 400, body: { error: 'invalid_request_target', message: 'The request target must be an absolute path such as /api/v1/...' } };
				if (isOperator) {
					const why = operatorRefusal(req, method === 'POST' && /^\/sandbox\/outbox\/[^/]+$/.test(path));
					if (why) return { status: 403, body: { error: 'forbidden', message: why } };
					return await handle(o.operator!, false);
				}
				const fault = o.traffic.takeFault(method, path);
				if (fault?.delayMs || fault?.hold) {
					// Read the body before the delay, as a real server has it before it answers slowly: a
					// client that gives up (or dies) during the delay still leaves its body in the log.
					await readBodyEarly();
					if (fault.delayMs) await sleep(fault.delayMs);
					if (fault.hold) await fault.hold;
				}
				if (fault?.status && !fault.commitThen500) {
					const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
					return {
						status: fault.status,
						body: fault.body ?? { error: fault.status === 429 ? 'rate_limited' : fault.status === 503 ? 'service_unavailable' : 'injected_fault' },
						headers,
					};
				}
				const real = await handle(o.router, true);
				if (fault?.commitThen500) return { status: 500, body: { error: 'internal_error' } };
				return real;
			})();
			status = r.status;
			send(res, !isOperator && o.core.opts.rewordErrors ? reworded(r) : r);
		} catch (e) {
			const r = errorRes(e, o.core);
			status = r.status;
			if (!res.headersSent) send(res, r);
		} finally {
			if (!isOperator) log();
		}

		/** Route, then key, then content type, and only then the body is read: refused requests cost no memory. */
		async function handle(router: Router, needAuth: boolean): Promise<Res> {
			try {
				const found = router.find(method, path);
				if (found === null) return { status: 404, body: { error: 'not_found', message: `No route for ${method} ${path}` } };
				if (found === 'method') return { status: 405, body: { error: 'method_not_allowed' } };
				const auth = needAuth && found.route.auth ? o.core.authenticate(req.headers) : (undefined as unknown as Auth);
				let body: unknown = undefined;
				if (hasBody(req)) {
					if (!isJsonContentType(req.headers['content-type'])) {
						throw new ApiError(415, 'unsupported_media_type', { message: 'Bodies must be application/json (UTF-8)' });
					}
					raw ??= await readBody(req, o.traffic);
					body = parseJson(raw, o.api).value;
					parsedBody = body ?? null;
				}
				const r = await found.route.handler({ core: o.core, req, method, path, query: target!.query, headers: req.headers, body, params: found.params, auth });
				o.core.dirty = true;
				return r;
			} catch (e) {
				return errorRes(e, o.core);
			}
		}

		/** The body of a JSON request, read (not yet checked) ahead of an injected delay; handle() parses it. */
		async function readBodyEarly(): Promise<void> {
			if (!hasBody(req) || !isJsonContentType(req.headers['content-type'])) return;
			raw = await readBody(req, o.traffic);
			try {
				parsedBody = parseJson(raw, o.api).value ?? null;
			} catch {
				// handle() answers the bad body; an injected status answers without parsing it.
			}
		}

		function log(): void {
			const query: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
			if (target) {
				for (const k of new Set(target.query.keys())) {
					const all = target.query.getAll(k);
					query[k] = all.length > 1 ? all : all[0];
				}
			}
			const entry: LoggedRequest = {
				seq: ++o.traffic.seq,
				api: o.api,
				method,
				path,
				query,
				// Credentials masked: the log is readable by anyone on this machine (operator API, console).
				headers: loggedHeaders(req.headers),
				body: null,
				status,
				at: new Date().toISOString(),
			};
			let size = 300 + path.length + (target ? target.query.toString().length : 0) + req.rawHeaders.reduce((n, h) => n + h.length + 4, 0);
			if (raw && raw.length > 0) {
				const keep = status < 400 ? LIMITS.logBodyOkBytes : LIMITS.logBodyRejectedBytes;
				if (raw.length <= keep && parsedBody !== null) {
					entry.body = parsedBody;
					size += raw.length * 2;
				} else {
					entry.bodyBytes = raw.length;
					entry.bodyHead = raw.subarray(0, 1024).toString('utf8');
					size += 2048;
				}
			}
			o.traffic.record(entry, size);
			if (o.core.opts.log) console.error(`[sandbox] ${o.api} ${method} ${path} -> ${status}`);
		}
	};
}
