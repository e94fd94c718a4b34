/** Outgoing webhooks: envelopes, signatures, at-least-once delivery with backoff, auto-disable. Sent with undici. */
import { createHmac } from 'node:crypto';
import { lookup as dnsCallbackLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import type { Core } from './core';
import type { Attempt, Delivery, Endpoint } from './state';
import { hex, uuid } from './util';

export const MAX_ATTEMPTS = 60;
export const AUTO_DISABLE_AFTER = 10;
const BASE_BACKOFF_MS = 10_000;
const MAX_BACKOFF_MS = 15 * 60_000;
const ATTEMPT_TIMEOUT_MS = 10_000;

export const newSecret = (): string => 'whsec_' + hex(32);

/** `t=<unix>,v1=<hex>[,v1=<hex>]`: one v1 per active secret (two during a graceful rotation). */
export function signatureHeader(secrets: string[], t: number, rawBody: string): string {
	return [`t=${t}`, ...secrets.map((s) => 'v1=' + createHmac('sha256', Buffer.from(s, 'utf8')).update(`${t}.${rawBody}`).digest('hex'))].join(',');
}

/** Backoff after the n-th failed attempt (1-based): 10 s doubling, capped at 15 min (before timeScale). */
export function backoffMs(n: number): number {
	return Math.min(BASE_BACKOFF_MS * 2 ** (n - 1), MAX_BACKOFF_MS);
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1']);
const METADATA_HOSTS = new Set(['169.254.169.254', 'metadata.google.internal', 'metadata', 'fd00:ec2::254', '100.100.100.200']);

/**
 * Special-use and reserved names (RFC 6761, 6762, 7686, 8375, 9476, ICANN's .internal): they can
 * never be a public host. `.example` is the TLD; example.com is a public name and stays allowed.
 */
const SPECIAL_USE_SUFFIXES = ['invalid', 'test', 'example', 'localhost', 'local', 'internal', 'onion', 'alt', 'home.arpa', 'arpa'];

/** Address ranges that are not public unicast (IANA special-purpose registries). Two lists: a
 * BlockList also matches IPv4 addresses against IPv6 rules (as ::ffff:a.b.c.d). */
const NON_PUBLIC_V4 = new BlockList();
const NON_PUBLIC_V6 = new BlockList();
for (const [net, bits] of [
	['0.0.0.0', 8],
	['10.0.0.0', 8],
	['100.64.0.0', 10],
	['127.0.0.0', 8],
	['169.254.0.0', 16],
	['172.16.0.0', 12],
	['192.0.0.0', 24],
	['192.0.2.0', 24],
	['192.88.99.0', 24],
	['192.168.0.0', 16],
	['198.18.0.0', 15],
	['198.51.100.0', 24],
	['203.0.113.0', 24],
	['224.0.0.0', 3],
] as const)
	NON_PUBLIC_V4.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
	['::', 3], // ::, ::1, IPv4-mapped and -compatible, NAT64 64:ff9b::/96, discard 100::/64: all outside global unicast 2000::/3
	['2001::', 23],
	['2001:db8::', 32],
	['2002::', 16],
	['3fff::', 20],
	['4000::', 2],
	['8000::', 1],
] as const)
	NON_PUBLIC_V6.addSubnet(net, bits, 'ipv6');

/** True for an IP literal that is not a public unicast address. */
export function isNonPublicIp(ip: string): boolean {
	const family = isIP(ip);
	if (family === 0) return false;
	return family === 4 ? NON_PUBLIC_V4.check(ip, 'ipv4') : NON_PUBLIC_V6.check(ip, 'ipv6');
}

/** The loopback ports a sandbox delivers to: every one (in-process tests), these, or none. */
export type LoopbackPorts = boolean | readonly number[];

const admitsLoopback = (p: LoopbackPorts): boolean => p === true || (Array.isArray(p) && p.length > 0);
const portOf = (u: URL): number => Number(u.port || (u.protocol === 'https:' ? 443 : 80));

/** Returns an error message, or null when the URL is acceptable for an endpoint (no DNS here). */
export function checkWebhookUrl(raw: string, allowLoopback: LoopbackPorts): string | null {
	let u: URL;
	try {
		u = new URL(raw);
	} catch {
		return 'url must be an absolute URL';
	}
	const host = u.hostname.toLowerCase().replace(/\.$/, '');
	const bare = host.replace(/^\[|\]$/g, '');
	const loopback = LOOPBACK_HOSTS.has(bare) || /^127\./.test(bare);
	if (METADATA_HOSTS.has(bare)) return 'url points at a cloud metadata address';
	if (loopback && admitsLoopback(allowLoopback)) {
		if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'url must use https';
		if (allowLoopback === true || (allowLoopback as readonly number[]).includes(portOf(u))) return null;
		const named = (allowLoopback as readonly number[]).join(',');
		return `url points at loopback port ${portOf(u)}, and this sandbox delivers to loopback only on port ${named} (--allow-loopback-webhooks=${named})`;
	}
	if (u.protocol !== 'https:') return 'url must use https';
	if (loopback) return 'url points at a loopback address';
	if (isIP(bare)) return isNonPublicIp(bare) ? 'url points at a private or reserved address' : null;
	if (!host.includes('.')) return 'url host is a single-label name, which does not resolve to a public host';
	const tld = SPECIAL_USE_SUFFIXES.find((s) => host === s || host.endsWith(`.${s}`));
	if (tld) return `url host is under the special-use name .${tld}, which never resolves to a public host`;
	return null;
}

/**
 * The resolver of deliveries: a name (other than localhost, whose port checkWebhookUrl checks) must
 * resolve to public addresses only, as at the service, so that no name can lead a delivery to a
 * loopback port or a private address that registration would refuse as a literal.
 */
const deliveryLookup: LookupFunction = (hostname, options, callback) => {
	const cb = callback as (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
	dnsCallbackLookup(hostname, { ...options, all: true }, (err, addresses) => {
		if (err) return cb(err, []);
		const name = hostname.toLowerCase().replace(/\.$/, '');
		const bad = name === 'localhost' ? addresses.find((a) => !isLoopbackIp(a.address)) : addresses.find((a) => isNonPublicIp(a.address));
		if (bad) return cb(Object.assign(new Error(`url host ${name} resolves to ${bad.address}, which is not a public address`), { code: 'ENOTPUBLIC' }), []);
		if (options.all) return cb(null, addresses);
		cb(null, addresses[0].address, addresses[0].family);
	});
};
const isLoopbackIp = (ip: string) => ip === '::1' || ip.startsWith('127.');

/** Answers kept per attempt: at most this many bytes are read; the rest is discarded unread. */
const ANSWER_READ_BYTES = 4096;

/**
 * What is kept of a receiver's answer: from a JSON object only `received` (a boolean), `ignored` (a
 * reason token such as `duplicate`), and `error` and `message` (one line, at most 160 characters),
 * re-serialized; nothing of any other answer. The console words an attempt from these; anything more
 * would let whoever holds the (public) demo key read back the pages of local services.
 */
export function keptAnswer(text: string): string | null {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return null;
	}
	if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
	const v = value as Record<string, unknown>;
	const kept: Record<string, unknown> = {};
	if (typeof v.received === 'boolean') kept.received = v.received;
	if (typeof v.ignored === 'string' && /^[a-z][a-z0-9_]{0,39}$/.test(v.ignored)) kept.ignored = v.ignored;
	for (const k of ['error', 'message'] as const) {
		const t = typeof v[k] === 'string' ? (v[k] as string).replace(/\s+/g, ' ').trim() : '';
		if (t) kept[k] = t.length > 160 ? `${t.slice(0, 160)}…` : t;
	}
	return Object.keys(kept).length ? JSON.stringify(kept) : null;
}

/** The answer's first ANSWER_READ_BYTES bytes as text (the rest is dropped; an answer cut short is not JSON). */
async function readHead(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const c of body) {
		chunks.push(c);
		size += c.length;
		if (size > ANSWER_READ_BYTES) {
			body.destroy();
			break;
		}
	}
	return Buffer.concat(chunks)
		.subarray(0, ANSWER_READ_BYTES + 1)
		.toString('utf8');
}

export type Lookup = (host: string) => Promise<string[]>;
const DNS_TIMEOUT_MS = 3000;

/** Every address the system resolver gives for a name (A and AAAA). */
export const systemLookup: Lookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * With DNS checks on: a name must resolve, within a bound, and only to public addresses (a public
 * name pointing at loopback or a private range is refused). Returns an error message or null.
 */
export async function checkWebhookHost(raw: string, lookup: Lookup, allowLoopback: LoopbackPorts = false): Promise<string | null> {
	const host = new URL(raw).hostname.toLowerCase().replace(/\.$/, '');
	if (isIP(host.replace(/^\[|\]$/g, '')) || (admitsLoopback(allowLoopback) && host === 'localhost')) return null;
	let addresses: string[];
	try {
		addresses = await Promise.race([lookup(host), new Promise<never>((_r, reject) => setTimeout(() => reject(new Error('timeout')), DNS_TIMEOUT_MS).unref())]);
	} catch (e) {
		return `url host ${host} does not resolve (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
	}
	if (addresses.length === 0) return `url host ${host} does not resolve`;
	const bad = addresses.find(isNonPublicIp);
	return bad ? `url host ${host} resolves to ${bad}, which is not a public address` : null;
}

export interface AttemptLog {
	seq: number;
	endpointId: string;
	deliveryId: string | null;
	url: string;
	headers: Record<string, string>;
	body: string;
	statusCode: number | null;
	error: string | null;
	/** What is kept of the receiver's answer (keptAnswer: a few JSON fields, or null). */
	response: string | null;
	at: string;
	durationMs: number;
}

export function publicEndpoint(e: Endpoint): Record<string, unknown> {
	const { secret: _s, secretNext: _n, ...rest } = e;
	void _s;
	void _n;
	return rest;
}

export function publicDelivery(d: Delivery): Record<string, unknown> {
	const { rawBody: _r, attempts: _a, nextAttemptAt: _n, envelopeId: _e, ...rest } = d;
	void _r;
	void _a;
	void _n;
	void _e;
	return rest;
}

export class Webhooks {
	attemptsLog: AttemptLog[] = [];
	private seq = 0;
	private inflight = new Set<Promise<void>>();
	private running = new Set<string>();
	/** Aborted by close(): in-flight attempts must not hold the process for their full timeout. */
	private closing = new AbortController();
	private dispatcher = new Agent({ connect: { lookup: deliveryLookup } });

	constructor(private core: Core) {
		core.onResume.push(() => {
			for (const d of core.data.deliveries) {
				if (d.status === 'PENDING' || d.status === 'DISPATCHED') {
					d.status = 'PENDING';
					this.schedule(d, d.nextAttemptAt ?? core.now());
				}
			}
		});
	}

	/** Records the event and one delivery per subscribed endpoint of the account. */
	emit(accountId: string, type: string, data: Record<string, unknown>): string {
		const core = this.core;
		const eventId = uuid();
		const envelope = { id: `evt_${eventId}_${type}`, type, created: core.iso(), accountId, data };
		const rawBody = JSON.stringify(envelope);
		for (const e of core.data.endpoints) {
			if (e.accountId !== accountId || e.deletedAt || !e.eventTypes.includes(type)) continue;
			this.createDelivery(e, eventId, envelope.id, type, rawBody);
		}
		return envelope.id;
	}

	createDelivery(e: Endpoint, eventId: string, envelopeId: string, type: string, rawBody: string, replayOf?: string): Delivery {
		const core = this.core;
		const d: Delivery = {
			id: uuid(),
			accountId: e.accountId,
			endpointId: e.id,
			eventId,
			publicEventType: type,
			status: 'PENDING',
			attemptSalt: Math.floor(Math.random() * 2 ** 31),
			lastStatusCode: null,
			lastError: null,
			createdAt: core.iso(),
			dispatchedAt: null,
			deliveredAt: null,
			failedAt: null,
			envelopeId,
			rawBody,
			attempts: [],
			nextAttemptAt: core.now(),
			replayOf,
		};
		core.data.deliveries.push(d);
		core.deliveries.set(d.id, d);
		core.dirty = true;
		if (e.status === 'DISABLED' || e.deletedAt) this.skip(d);
		else this.schedule(d, d.nextAttemptAt!);
		return d;
	}

	private skip(d: Delivery): void {
		d.status = 'SKIPPED';
		d.nextAttemptAt = null;
		d.lastError = d.lastError ?? 'endpoint disabled';
	}

	private schedule(d: Delivery, due: number): void {
		d.nextAttemptAt = due;
		this.core.scheduler.at(due, () => {
			if (d.status === 'PENDING' && d.nextAttemptAt === due) this.track(this.attempt(d));
		});
	}

	private track(p: Promise<void>): void {
		this.inflight.add(p);
		void p.finally(() => this.inflight.delete(p));
	}

	private async attempt(d: Delivery): Promise<void> {
		const core = this.core;
		const e = core.endpoints.get(d.endpointId);
		if (!e || e.deletedAt || e.status === 'DISABLED') {
			this.skip(d);
			return;
		}
		if (this.running.has(d.id)) return;
		this.running.add(d.id);
		d.status = 'DISPATCHED';
		d.dispatchedAt = core.iso();
		d.nextAttemptAt = null;
		try {
			const r = await this.send(e, d.rawBody, d.envelopeId, d.id, d.publicEventType);
			const at: Attempt = {
				attempt: d.attempts.length + 1,
				startedAt: r.at,
				durationMs: r.durationMs,
				statusCode: r.statusCode,
				error: r.error,
				responseSnippet: r.snippet,
				signature: r.headers['x-service-webhook-signature'],
			};
			d.attempts.push(at);
			d.lastStatusCode = r.statusCode;
			d.lastError = r.error;
			if (r.ok) {
				d.status = 'DELIVERED';
				d.deliveredAt = core.iso();
				e.consecutiveFailures = 0;
			} else if (d.attempts.length >= (core.opts.deliveryAttempts ?? MAX_ATTEMPTS)) {
				// Exhausted: the delivery is FAILED (dead-lettered); failed deliveries, not attempts, count toward auto-disable.
				d.status = 'FAILED';
				d.failedAt = core.iso();
				e.consecutiveFailures++;
				if (e.consecutiveFailures >= AUTO_DISABLE_AFTER && e.status === 'ENABLED') {
					e.status = 'DISABLED';
					e.disabledAt = core.iso();
					e.updatedAt = core.iso();
				}
			} else {
				d.status = 'PENDING';
				this.schedule(d, core.scheduler.dueIn(backoffMs(d.attempts.length)));
			}
			core.dirty = true;
		} finally {
			this.running.delete(d.id);
		}
	}

	/** How long one attempt waits for an answer: the service's 10 s divided by timeScale (at least 250 ms), unless set. */
	attemptTimeoutMs(): number {
		return this.core.opts.attemptTimeoutMs ?? Math.max(ATTEMPT_TIMEOUT_MS / this.core.opts.timeScale, 250);
	}

	/** One signed POST; never throws. */
	async send(e: Endpoint, rawBody: string, envelopeId: string, deliveryId: string | null, type: string) {
		const t = Math.floor(Date.now() / 1000); // real time: verifiers compare it with their own clock
		const secrets = [e.secret, ...(e.secretNext ? [e.secretNext] : [])];
		const headers: Record<string, string> = {
			'content-type': 'application/json',
			'x-service-webhook-signature': signatureHeader(secrets, t, rawBody),
			'x-service-webhook-id': envelopeId,
			'x-service-event': type,
			'user-agent': 'clearinghouse-sandbox-webhooks/1',
		};
		if (deliveryId) headers['x-service-webhook-delivery-id'] = deliveryId;
		const started = Date.now();
		const at = this.core.iso();
		let statusCode: number | null = null;
		let error: string | null = null;
		let snippet: string | null = null;
		const timeout = this.attemptTimeoutMs();
		// Checked again at each attempt: an endpoint kept in a data file from a start with other flags.
		const refused = checkWebhookUrl(e.url, this.core.opts.allowLoopbackWebhooks);
		try {
			if (refused) throw new Error(`not sent: ${refused}`);
			const res = await request(e.url, {
				dispatcher: this.dispatcher,
				method: 'POST',
				headers,
				body: rawBody,
				headersTimeout: timeout,
				bodyTimeout: timeout,
				signal: AbortSignal.any([AbortSignal.timeout(timeout), this.closing.signal]),
			});
			statusCode = res.statusCode;
			snippet = keptAnswer(await readHead(res.body));
			if (statusCode < 200 || statusCode > 299) error = `HTTP ${statusCode}`;
		} catch (err) {
			error = (err as Error)?.name === 'TimeoutError' || /timeout/i.test(String((err as Error)?.message)) ? 'timeout' : String((err as Error)?.message ?? err);
		}
		const durationMs = Date.now() - started;
		this.attemptsLog.push({
			seq: ++this.seq,
			endpointId: e.id,
			deliveryId,
			url: e.url,
			headers,
			body: rawBody,
			statusCode,
			error,
			response: snippet,
			at,
			durationMs,
		});
		if (this.attemptsLog.length > 20000) this.attemptsLog.splice(0, 5000);
		return { ok: statusCode !== null && statusCode >= 200 && statusCode <= 299, statusCode, error, snippet, durationMs, headers, at };
	}

	/** Synchronous `webhook.ping`; no delivery row. */
	async ping(e: Endpoint) {
		const body = JSON.stringify({
			id: `evt_test_${uuid()}`,
			type: 'webhook.ping',
			created: this.core.iso(),
			accountId: e.accountId,
			data: { message: 'Test webhook from the clearinghouse sandbox' },
		});
		const id = (JSON.parse(body) as { id: string }).id;
		const r = await this.send(e, body, id, null, 'webhook.ping');
		return { delivered: r.ok, statusCode: r.statusCode, durationMs: r.durationMs, error: r.error, eventId: id };
	}

	/** Runs one attempt of every PENDING delivery now and waits for all in-flight attempts. */
	async flush(): Promise<number> {
		const pending = this.core.data.deliveries.filter((d) => d.status === 'PENDING');
		for (const d of pending) this.track(this.attempt(d));
		await this.idle();
		return pending.length;
	}

	async close(): Promise<void> {
		this.closing.abort();
		await this.idle();
		await this.dispatcher.close();
	}

	async idle(): Promise<void> {
		while (this.inflight.size) await Promise.allSettled([...this.inflight]);
	}
}
