/**
 * The request log and the injected faults: kept for both public servers (the pipeline in ../router.ts
 * records every request and applies the faults), driven only by the operator API, whose routes are here.
 */
import { z } from 'zod';
import type { Router } from '../router';
import { LIMITS } from '../router';
import { parse } from '../schemas';
import type { Services } from '../services';
import { fail } from '../util';
import { ok } from './shared';

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

const faultSchema = z.object({
	method: z.string().optional(),
	path: z.string().min(1),
	count: z.number().int().positive().optional(),
	status: z.number().int().min(100).max(599).optional(),
	retryAfter: z.number().nonnegative().optional(),
	delayMs: z.number().nonnegative().optional(),
	commitThen500: z.boolean().optional(),
});

export function registerTrafficOperator(r: Router, svc: Services): void {
	const { traffic } = svc;
	const faults = () => traffic.faults.map((f) => ({ ...f, path: f.pathSource }));

	r.add(
		'POST',
		'/sandbox/faults',
		(ctx) => {
			const b = parse(faultSchema, ctx.body);
			let re: RegExp;
			try {
				re = new RegExp(b.path);
			} catch {
				fail(400, 'invalid_regex');
			}
			if (b.status === undefined && !b.delayMs && !b.commitThen500) fail(400, 'validation_error', 'give status, delayMs or commitThen500');
			traffic.faults.push({
				method: b.method,
				path: re,
				pathSource: b.path,
				count: b.count ?? 1,
				status: b.status,
				retryAfter: b.retryAfter,
				delayMs: b.delayMs,
				commitThen500: b.commitThen500,
			});
			return ok({ faults: faults() }, 201);
		},
		false,
	);
	r.add('GET', '/sandbox/faults', () => ok({ faults: faults() }), false);
	r.add(
		'DELETE',
		'/sandbox/faults',
		() => {
			traffic.faults = [];
			return ok();
		},
		false,
	);

	r.add(
		'GET',
		'/sandbox/requests',
		(ctx) => {
			const since = Number(ctx.query.get('since') ?? 0) || 0;
			return ok({ requests: traffic.requests.filter((x) => x.seq > since), lastSeq: traffic.seq });
		},
		false,
	);
	r.add(
		'DELETE',
		'/sandbox/requests',
		() => {
			traffic.clearLog();
			return ok({ ok: true, lastSeq: traffic.seq });
		},
		false,
	);
}
