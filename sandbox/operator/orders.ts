/** Operator API, orders and time: the netting close, bulk orders, an order's bookkeeping, a failed distribution, expiry, the clock. */
import { z } from 'zod';
import { IN_FLIGHT } from '../engine';
import type { Router } from '../router';
import { parse } from '../schemas';
import type { Services } from '../services';
import { ORDER_STATUSES } from '../state';
import { accountOf, ok, orderOf, type OperatorState } from './shared';
import { nettingSays } from './words';

const schemas = {
	advance: z.object({ seconds: z.number().nonnegative() }),
	bulk: z.object({
		count: z.number().int().positive().max(1_000_000),
		fromUserId: z.string().optional(),
		status: z.enum(ORDER_STATUSES).optional(),
		subaccountId: z.string().optional(),
	}),
};

export function registerOrderOperator(r: Router, svc: Services, state: OperatorState): void {
	const { core, engine } = svc;

	r.add(
		'POST',
		'/sandbox/netting/close',
		() => {
			const result = engine.closeNetting();
			// Deposits seen on chain but not yet swept: their orders were not FUNDED at the close.
			const waiting = core.data.orders.filter(
				(o) => o.status === 'AWAITING_FUNDS' && !o.cancelRequestedAt && o.inboundTransfers.some((t) => IN_FLIGHT.has(t.status)),
			);
			const says = nettingSays(result, (id) => core.orders.get(id), waiting);
			state.lastNetting = { at: core.iso(), says };
			return ok({ ...result, waitingIds: waiting.map((o) => o.id), says });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/payment-orders/bulk',
		(ctx) => {
			const b = parse(schemas.bulk, ctx.body);
			const acc = accountOf(core, b.subaccountId);
			const from = b.fromUserId ?? core.data.users.find((u) => u.accountId === acc.id)?.id ?? null;
			const created = engine.createBulk(acc, b.count, from, b.status ?? 'AWAITING_FUNDS');
			return ok({ created, total: core.data.orders.length }, 201);
		},
		false,
	);

	r.add(
		'GET',
		'/sandbox/payment-orders/:id',
		(ctx) => {
			const o = orderOf(core, ctx.params.id);
			// The operator API names the order's bookkeeping `x`, as it always has.
			const { internal, ...order } = o;
			return ok({ ...order, x: internal, returns: engine.returnsBlock(o) });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/payment-orders/:id/fail-distribution',
		(ctx) => {
			const o = orderOf(core, ctx.params.id);
			o.internal.failNextDistribution = true;
			return ok({ paymentOrderId: o.id, failNextDistribution: true });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/payment-orders/:id/expire',
		(ctx) => {
			const o = orderOf(core, ctx.params.id);
			engine.expire(o);
			return ok({ paymentOrderId: o.id, status: o.status });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/clock/advance',
		(ctx) => {
			const b = parse(schemas.advance, ctx.body);
			const ran = core.scheduler.advance(b.seconds);
			return ok({ now: core.iso(), offsetMs: core.scheduler.offsetMs, tasksRun: ran });
		},
		false,
	);
}
