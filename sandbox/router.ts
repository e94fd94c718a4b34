/** A tiny router plus the HTTP pipeline: body parsing, request log, fault injection, JSON errors. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Auth, Core } from './core';
import { consoleAsset } from './console';
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
export interface Res { status: number; body?: unknown; headers?: Record<string, string> }
export type Handler = (ctx: Ctx) => Res | Promise<Res>;

interface Route { method: string; re: RegExp; keys: string[]; handler: Handler; auth: boolean }

export class Router {
	private routes: Route[] = [];
	/** `pattern` uses `:name` segments; `auth: false` for the operator API. */
	add(method: string, pattern: string, handler: Handler, auth = true): this {
		const keys: string[] = [];
		const re = new RegExp('^' + pattern.replace(/:([a-zA-Z]+)/g, (_m, k: string) => (keys.push(k), '([^/]+)')) + '/?$');
		this.routes.push({ method, re, keys, handler, auth });
		return this;
	}
	find(method: string, path: string): { route: Route; params: Record<string, string> } | 'method' | null {
		let methodMismatch = false;
		for (const r of this.routes) {
			const m = r.re.exec(path);
			if (!m) continue;
			if (r.method !== method) {
				methodMismatch = true;
				continue;
			}
			const params: Record<string, string> = {};
			r.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1])));
			return { route: r, params };
		}
		return methodMismatch ? 'method' : null;
	}
}

export interface Fault {
	method?: string; path: RegExp; pathSource: string; count: number; status?: number; retryAfter?: number; delayMs?: number; commitThen500?: boolean;
}
export interface LoggedRequest {
	seq: number; api: 'main' | 'rewards'; method: string; path: string; query: Record<string, string | string[]>;
	headers: Record<string, string | string[] | undefined>; body: unknown; status: number; at: string;
}

/** Faults and the request log, shared by both public servers and driven by the operator API. */
export class Traffic {
	faults: Fault[] = [];
	requests: LoggedRequest[] = [];
	seq = 0;
	takeFault(method: string, path: string): Fault | null {
		const f = this.faults.find((x) => x.count > 0 && (!x.method || x.method.toUpperCase() === method) && x.path.test(path));
		if (!f) return null;
		f.count--;
		this.faults = this.faults.filter((x) => x.count > 0);
		return f;
	}
}

const MAX_BODY = 5 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const c of req) {
		size += (c as Buffer).length;
		if (size > MAX_BODY) throw new ApiError(413, 'payload_too_large');
		chunks.push(c as Buffer);
	}
	return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, r: Res): void {
	const headers: Record<string, string> = { ...(r.headers ?? {}) };
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

const isLoopback = (addr: string | undefined) => !!addr && (addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.'));

export interface ServeOptions { api: 'main' | 'rewards'; router: Router; operator?: Router; traffic: Traffic; core: Core }

/** The request handler of one public server (and, on the main server, the operator API under /sandbox). */
export function makeHandler(o: ServeOptions) {
	return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const url = new URL(req.url ?? '/', 'http://sandbox.local');
		const method = (req.method ?? 'GET').toUpperCase();
		const path = url.pathname;
		const isOperator = !!o.operator && (path === '/sandbox' || path.startsWith('/sandbox/'));
		const page = o.operator && method === 'GET' ? consoleAsset(path) : undefined;
		if (page) {
			// The browser console (sandbox/console/): loopback-only like the operator API it drives.
			const allowed = isLoopback(req.socket.remoteAddress);
			res.writeHead(allowed ? 200 : 403, { 'content-type': allowed ? page.type : 'text/plain', 'cache-control': 'no-store' });
			res.end(allowed ? page.body : 'loopback only');
			return;
		}
		let status = 500;
		let parsedBody: unknown = null;
		try {
			const raw = await readBody(req);
			let body: unknown = undefined;
			let badJson = false;
			if (raw.trim() !== '') {
				try {
					body = JSON.parse(raw);
				} catch {
					badJson = true;
				}
			}
			parsedBody = body ?? null;
			const r = await (async (): Promise<Res> => {
				if (isOperator) {
					if (!isLoopback(req.socket.remoteAddress)) return { status: 403, body: { error: 'operator API is loopback-only' } };
					if (badJson) return { status: 400, body: { error: 'invalid_json' } };
					return route(o.operator!, method, path, url, req, body, o.core, false);
				}
				const fault = o.traffic.takeFault(method, path);
				if (fault?.delayMs) await sleep(fault.delayMs);
				if (fault?.status && !fault.commitThen500) {
					const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
					return { status: fault.status, body: { error: fault.status === 429 ? 'rate_limited' : fault.status === 503 ? 'service_unavailable' : 'injected_fault' }, headers };
				}
				if (badJson) return { status: 400, body: { error: 'invalid_json', message: 'Body is not valid JSON', ...(o.api === 'rewards' ? { path: '' } : {}) } };
				const real = await route(o.router, method, path, url, req, body, o.core, true);
				if (fault?.commitThen500) return { status: 500, body: { error: 'internal_error' } };
				return real;
			})();
			status = r.status;
			send(res, r);
		} catch (e) {
			const r = errorRes(e, o.core);
			status = r.status;
			if (!res.headersSent) send(res, r);
		} finally {
			if (!isOperator) {
				const query: Record<string, string | string[]> = {};
				for (const k of new Set(url.searchParams.keys())) {
					const all = url.searchParams.getAll(k);
					query[k] = all.length > 1 ? all : all[0];
				}
				o.traffic.requests.push({
					seq: ++o.traffic.seq, api: o.api, method, path, query, headers: { ...req.headers }, body: parsedBody, status, at: new Date().toISOString(),
				});
				if (o.traffic.requests.length > 50000) o.traffic.requests.splice(0, 10000);
				if (o.core.opts.log) console.error(`[sandbox] ${o.api} ${method} ${url.pathname}${url.search} -> ${status}`);
			}
		}
	};
}

async function route(router: Router, method: string, path: string, url: URL, req: IncomingMessage, body: unknown, core: Core, needAuth: boolean): Promise<Res> {
	try {
		const found = router.find(method, path);
		if (found === null) return { status: 404, body: { error: 'not_found', message: `No route for ${method} ${path}` } };
		if (found === 'method') return { status: 405, body: { error: 'method_not_allowed' } };
		const auth = needAuth && found.route.auth ? core.authenticate(req.headers) : (undefined as unknown as Auth);
		const r = await found.route.handler({ core, req, method, path, query: url.searchParams, headers: req.headers, body, params: found.params, auth });
		core.dirty = true;
		return r;
	} catch (e) {
		return errorRes(e, core);
	}
}
