/** The operator API over the request log and the injected faults (the model: ../traffic.ts). */
import { z } from 'zod';
import type { Router } from '../router';
import { parse } from '../schemas';
import type { Services } from '../services';
import { fail } from '../util';
import { ok } from './shared';

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
