/**
 * The traffic of both public servers: the request log, the injected faults, and the bounds on what is
 * read and kept. The pipeline in router.ts records every request here and applies the faults; the
 * operator API drives them (its routes: operator/traffic.ts).
 */
import { createHash } from 'node:crypto';

/** Bounds of the request log and of the bodies being read at one time. */
export const LIMITS = {
	maxBodyBytes: 5 * 1024 * 1024,
	/** Bodies being read at once, over every connection; beyond it requests get 429 until reads finish. */
	maxInflightBodyBytes: 48 * 1024 * 1024,
	maxDepth: 64,
	logMaxBytes: 16 * 1024 * 1024,
	logMaxEntries: 50_000,
	/** A read body is logged whole up to this size when the request succeeded... */
	logBodyOkBytes: 256 * 1024,
	/** ...and up to this size when it was refused; beyond, only its size and first KiB. */
	logBodyRejectedBytes: 4 * 1024,
};

export interface Fault {
	method?: string;
	path: RegExp;
	pathSource: string;
	count: number;
	status?: number;
	retryAfter?: number;
	delayMs?: number;
	/** In-process tests only: the request (its body read) waits until this settles, an order of answers with no timing. */
	hold?: Promise<unknown>;
	commitThen500?: boolean;
	/** In-process tests only: the body of the fault's answer instead of `{error: code}` (a service worded unlike the sandbox). */
	body?: unknown;
}
export interface LoggedRequest {
	seq: number;
	api: 'main' | 'rewards';
	method: string;
	path: string;
	query: Record<string, string | string[]>;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
	status: number;
	at: string;
	/** Size of a body that was read but not kept whole (large, or of a rejected request), and its first KiB. */
	bodyBytes?: number;
	bodyHead?: string;
}

/** Request headers that carry a credential: the log keeps only their last four characters. */
const SECRET_HEADERS: ReadonlySet<string> = new Set(['x-api-key', 'authorization', 'proxy-authorization', 'cookie']);

/**
 * How the request log shows a credential: `****`, its last four characters (none when it has fewer
 * than 12) and the first 8 hex digits of its SHA-256, e.g. `****_key (sha256 8253c4ea)`: enough to tell
 * which key a client sent (the demo account's and subaccount's keys end alike), never enough to use it.
 * A client pointed at the sandbox by mistake may send a production key: the log (`GET /sandbox/requests`,
 * the console) must not hand it on.
 */
export function maskedSecret(value: string): string {
	if (value === '') return '';
	const fingerprint = createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 8);
	return `****${value.length < 12 ? '' : value.slice(-4)} (sha256 ${fingerprint})`;
}

/** The headers of a request as the log keeps them: every credential masked (maskedSecret). */
export function loggedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
	const kept: Record<string, string | string[] | undefined> = {};
	for (const [name, value] of Object.entries(headers)) {
		kept[name] = !SECRET_HEADERS.has(name.toLowerCase()) || value === undefined ? value : Array.isArray(value) ? value.map(maskedSecret) : maskedSecret(value);
	}
	return kept;
}

/** Faults and the request log, shared by both public servers and driven by the operator API. */
export class Traffic {
	faults: Fault[] = [];
	requests: LoggedRequest[] = [];
	seq = 0;
	/** Estimated bytes held by `requests`. */
	logBytes = 0;
	inflightBodyBytes = 0;
	private sizes = new WeakMap<LoggedRequest, number>();
	takeFault(method: string, path: string): Fault | null {
		const f = this.faults.find((x) => x.count > 0 && (!x.method || x.method.toUpperCase() === method) && x.path.test(path));
		if (!f) return null;
		f.count--;
		this.faults = this.faults.filter((x) => x.count > 0);
		return f;
	}
	/** Appends to the log; the oldest entries go once it passes its byte or entry bound. */
	record(entry: LoggedRequest, size: number): void {
		this.requests.push(entry);
		this.sizes.set(entry, size);
		this.logBytes += size;
		if (this.logBytes <= LIMITS.logMaxBytes && this.requests.length <= LIMITS.logMaxEntries) return;
		// Evict down to 90% at once, so a full log does not shift the array on every request.
		let drop = 0;
		let bytes = this.logBytes;
		while (drop < this.requests.length - 1 && (bytes > LIMITS.logMaxBytes * 0.9 || this.requests.length - drop > LIMITS.logMaxEntries * 0.9)) {
			bytes -= this.sizes.get(this.requests[drop]) ?? 0;
			drop++;
		}
		this.requests.splice(0, drop);
		this.logBytes = bytes;
	}
	clearLog(): void {
		this.requests = [];
		this.logBytes = 0;
	}
}
