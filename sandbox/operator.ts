/** Operator API under /sandbox (loopback only, no key): what the real service's staff and the chain do. */
import { z } from 'zod';
import type { Router } from './router';
import { parse } from './schemas';
import type { Services } from './services';
import { Account, ChainTx, Limits, ORDER_STATUSES, SUPPORTED_ASSETS } from './state';
import { fail, hex, normalizeAddress, txHashFor, uuid } from './util';
import { AUTO_DISABLE_AFTER } from './webhooks';
import { IN_FLIGHT } from './engine';
import { attemptSays, deliveryView, endpointName, nettingSays, nettingView, surplusView } from './overview';
import { publicRuleset } from './routes/rulesets';

// null removes a limit (field notes: the daily limits may be absent from a response).
const limitsSchema = z.object({
	maxTxUsd: z.number().positive().nullable().optional(),
	maxCountPerEpoch: z.number().int().nonnegative().nullable().optional(),
	maxValuePerEpochUsd: z.number().nonnegative().nullable().optional(),
	maxCountPerDay: z.number().int().nonnegative().nullable().optional(),
	maxValuePerDayUsd: z.number().nonnegative().nullable().optional(),
});
/** The operator API's request bodies, by endpoint. */
const operatorSchemas = {
	reset: z.object({ seed: z.enum(['demo', 'empty']).optional() }),
	activate: z
		.object({
			address: z.string().optional(),
			chain: z.string().optional(),
			userId: z.string().optional(),
			subaccountId: z.string().optional(),
			status: z.string().min(1).optional(),
		})
		.refine((b) => b.userId || (b.address && b.chain), 'give {address, chain} or {userId}'),
	account: z.object({
		status: z.string().optional(),
		kyb: z.string().optional(),
		capabilities: z.array(z.string()).optional(),
		limits: limitsSchema.optional(),
		subaccountId: z.string().optional(),
		provisioned: z.boolean().optional(),
	}),
	apiKey: z.object({ subaccountId: z.string().optional(), revokeOthers: z.boolean().optional() }),
	subaccount: z.object({
		name: z.string().optional(),
		status: z.string().optional(),
		kyb: z.string().optional(),
		provisioned: z.boolean().optional(),
		archived: z.boolean().optional(),
	}),
	deposit: z.object({
		paymentOrderId: z.string(),
		sender: z.string().min(1),
		chain: z.string(),
		asset: z.string(),
		amountUsd: z.number().positive(),
		indexed: z.boolean().optional(),
		transferCount: z.number().int().min(1).max(10).optional(),
	}),
	depositStatus: z.object({ status: z.enum(['PENDING_VERIFICATION', 'ONCHAIN_CONFIRMED', 'CONFIRMED', 'RETURNING', 'RETURNED', 'FAILED']) }),
	advance: z.object({ seconds: z.number().nonnegative() }),
	fault: z.object({
		method: z.string().optional(),
		path: z.string().min(1),
		count: z.number().int().positive().optional(),
		status: z.number().int().min(100).max(599).optional(),
		retryAfter: z.number().nonnegative().optional(),
		delayMs: z.number().nonnegative().optional(),
		commitThen500: z.boolean().optional(),
	}),
	rulesetDeposit: z.object({ sender: z.string().min(1), chain: z.string(), asset: z.string(), amountUsd: z.number().positive() }),
	bulk: z.object({
		count: z.number().int().positive().max(1_000_000),
		fromUserId: z.string().optional(),
		status: z.enum(ORDER_STATUSES).optional(),
		subaccountId: z.string().optional(),
	}),
};

/** Why an endpoint is DISABLED, for the console: the service's auto-disable (with the last failure) or a PATCH. */
function disabledReason(
	e: { id: string; status: string; consecutiveFailures: number },
	deliveries: Array<{ endpointId: string; status: string; lastError: string | null }>,
): string | null {
	if (e.status !== 'DISABLED') return null;
	if (e.consecutiveFailures < AUTO_DISABLE_AFTER) return 'disabled through the API (PATCH status DISABLED)';
	let last: string | null = null;
	for (let i = deliveries.length - 1; i >= 0 && last === null; i--) {
		const d = deliveries[i];
		if (d.endpointId === e.id && d.status === 'FAILED') last = d.lastError;
	}
	return `auto-disabled after ${e.consecutiveFailures} consecutive failed deliveries${last ? ` (last: ${last})` : ''}; new events are SKIPPED until it is re-enabled`;
}

export function registerOperator(r: Router, svc: Services): void {
	const { core, engine, webhooks, traffic } = svc;
	const ok = (body: unknown = { ok: true }, status = 200) => ({ status, body });
	const accountOf = (subaccountId?: string): Account => {
		if (!subaccountId) return core.root();
		const a = core.accounts.get(subaccountId);
		if (!a || !a.parentId) fail(404, 'subaccount_not_found');
		return a;
	};
	const accountView = (a: Account) => ({ ...a });
	// The last netting close, said in words, for the console: which orders went out, which missed the window.
	let lastNetting: { at: string; says: string } | null = null;
	/** A simulated on-chain transfer, not yet attributed to an order. */
	const recordChainTx = (f: Omit<ChainTx, 'hash' | 'attributedTo' | 'createdAt'>): ChainTx => {
		const tx: ChainTx = { hash: txHashFor(f.chain, uuid()), ...f, attributedTo: null, createdAt: core.iso() };
		core.data.chainTxs.push(tx);
		core.chainTxs.set(tx.hash, tx);
		return tx;
	};

	r.add(
		'GET',
		'/sandbox/state',
		() => {
			const root = core.root();
			return ok({
				accountId: root.id,
				apiKey: root.apiKey,
				account: accountView(root),
				capabilities: root.capabilities,
				limits: root.limits,
				subaccounts: core.children(root).map(accountView),
				users: core.data.users.map((u) => ({ id: u.id, label: u.label, accountId: u.accountId, wallets: u.wallets, returnWallets: u.returnWallets })),
				supportedAssets: SUPPORTED_ASSETS,
				depositAddresses: core.depositAddresses(root),
				epoch: core.data.epoch,
				clock: { now: core.iso(), offsetMs: core.scheduler.offsetMs },
				timeScale: core.opts.timeScale,
				seed: core.data.seed,
				counts: { orders: core.data.orders.length, deliveries: core.data.deliveries.length, endpoints: core.data.endpoints.length },
			});
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/reset',
		(ctx) => {
			const b = parse(operatorSchemas.reset, ctx.body);
			core.reset(b.seed ?? core.data.seed);
			traffic.faults = [];
			webhooks.attemptsLog = [];
			lastNetting = null;
			return ok({ ok: true, seed: core.data.seed });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/wallets/activate',
		(ctx) => {
			const b = parse(operatorSchemas.activate, ctx.body);
			const status = b.status ?? 'ACTIVE';
			const accountId = b.subaccountId ? accountOf(b.subaccountId).id : null;
			const changed: unknown[] = [];
			for (const u of core.data.users) {
				if (accountId && u.accountId !== accountId) continue;
				if (b.userId && u.id !== b.userId) continue;
				for (const w of u.wallets) {
					if (b.address && b.chain && (w.chain !== b.chain || w.address !== normalizeAddress(b.chain, b.address))) continue;
					w.status = status;
					changed.push({ userId: u.id, ...w });
				}
			}
			if (!changed.length) fail(404, 'wallet_not_found', 'No matching wallet');
			engine.retryWaitingReturns(); // a default return wallet may have become usable
			return ok({ wallets: changed });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/account',
		(ctx) => {
			const b = parse(operatorSchemas.account, ctx.body);
			const a = accountOf(b.subaccountId);
			if (b.status) a.status = b.status;
			if (b.kyb) a.kyb = b.kyb;
			if (b.capabilities) a.capabilities = b.capabilities;
			if (b.limits) {
				for (const [k, v] of Object.entries(b.limits) as [keyof Limits, number | null | undefined][]) {
					if (v === null) delete a.limits[k];
					else if (v !== undefined) a.limits[k] = v;
				}
			}
			if (b.provisioned !== undefined) a.provisioned = b.provisioned;
			return ok(accountView(a));
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/subaccounts',
		(ctx) => {
			const b = parse(operatorSchemas.subaccount, ctx.body);
			const root = core.root();
			const a: Account = {
				id: uuid(),
				parentId: root.id,
				name: b.name ?? 'Subaccount',
				status: b.status ?? 'ACTIVE',
				kyb: b.kyb ?? 'APPROVED',
				provisioned: b.provisioned ?? true,
				archived: b.archived ?? false,
				capabilities: [...root.capabilities],
				limits: {},
				apiKey: 'sk_sandbox_sub_' + hex(12),
				createdAt: core.iso(),
			};
			core.data.accounts.push(a);
			core.accounts.set(a.id, a);
			return ok({ ...accountView(a), id: a.id, apiKey: a.apiKey }, 201);
		},
		false,
	);

	// A second key for the same account, as the developer console issues one (key rotation);
	// `revokeOthers` then retires every earlier key of that account.
	r.add(
		'POST',
		'/sandbox/api-keys',
		(ctx) => {
			const b = parse(operatorSchemas.apiKey, ctx.body);
			const a = accountOf(b.subaccountId);
			const apiKey = (a.parentId ? 'sk_sandbox_sub_' : 'sk_sandbox_') + hex(12);
			if (b.revokeOthers) {
				a.apiKey = apiKey;
				a.extraApiKeys = [];
			} else {
				a.extraApiKeys = [...(a.extraApiKeys ?? []), apiKey];
			}
			return ok({ accountId: a.id, apiKey }, 201);
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/subaccounts/:id',
		(ctx) => {
			const b = parse(operatorSchemas.subaccount, ctx.body);
			const a = accountOf(ctx.params.id);
			if (b.name !== undefined) a.name = b.name;
			if (b.status !== undefined) a.status = b.status;
			if (b.kyb !== undefined) a.kyb = b.kyb;
			if (b.provisioned !== undefined) a.provisioned = b.provisioned;
			if (b.archived !== undefined) a.archived = b.archived;
			return ok(accountView(a));
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/deposits',
		(ctx) => {
			const b = parse(operatorSchemas.deposit, ctx.body);
			const o = core.orders.get(b.paymentOrderId);
			if (!o) fail(404, 'payment_order_not_found');
			if (!SUPPORTED_ASSETS.some((x) => x.chain === b.chain && x.symbol === b.asset)) fail(400, 'unsupported_asset', `${b.asset} on ${b.chain}`);
			const tx = recordChainTx({
				paymentOrderId: o.id,
				accountId: o.internal.accountId,
				sender: normalizeAddress(b.chain, b.sender) ?? b.sender,
				chain: b.chain,
				asset: b.asset,
				amountUsd: b.amountUsd,
				indexed: b.indexed ?? true,
				...(b.transferCount && b.transferCount > 1 ? { transferCount: b.transferCount } : {}),
			});
			const to = core.depositAddresses(core.accounts.get(o.internal.accountId)!).find((d) => d.chain === b.chain && d.symbol === b.asset)!.address;
			return ok({ transactionHash: tx.hash, chain: tx.chain, to, indexed: tx.indexed }, 201);
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/deposits/:hash/index',
		(ctx) => {
			const tx = core.chainTxs.get(ctx.params.hash);
			if (!tx) fail(404, 'transaction_not_found');
			tx.indexed = true;
			return ok({ transactionHash: tx.hash, indexed: true });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/deposits/:hash/status',
		(ctx) => {
			const b = parse(operatorSchemas.depositStatus, ctx.body);
			const tx = core.chainTxs.get(ctx.params.hash);
			const o = tx?.attributedTo ? core.orders.get(tx.attributedTo) : undefined;
			const t = o?.inboundTransfers.find((x) => x.transactionHash === ctx.params.hash);
			if (!o || !t) fail(404, 'deposit_not_attributed', 'No attributed deposit with that hash');
			engine.setDepositStatus(o, t, b.status);
			return ok({ paymentOrderId: o.id, transfer: t, orderStatus: o.status, orderVersion: o.version });
		},
		false,
	);

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
			lastNetting = { at: core.iso(), says };
			return ok({ ...result, waitingIds: waiting.map((o) => o.id), says });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/payment-orders/bulk',
		(ctx) => {
			const b = parse(operatorSchemas.bulk, ctx.body);
			const acc = accountOf(b.subaccountId);
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
			const o = core.orders.get(ctx.params.id);
			if (!o) fail(404, 'payment_order_not_found');
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
			const o = core.orders.get(ctx.params.id);
			if (!o) fail(404, 'payment_order_not_found');
			o.internal.failNextDistribution = true;
			return ok({ paymentOrderId: o.id, failNextDistribution: true });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/payment-orders/:id/expire',
		(ctx) => {
			const o = core.orders.get(ctx.params.id);
			if (!o) fail(404, 'payment_order_not_found');
			engine.expire(o);
			return ok({ paymentOrderId: o.id, status: o.status });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/clock/advance',
		(ctx) => {
			const b = parse(operatorSchemas.advance, ctx.body);
			const ran = core.scheduler.advance(b.seconds);
			return ok({ now: core.iso(), offsetMs: core.scheduler.offsetMs, tasksRun: ran });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/faults',
		(ctx) => {
			const b = parse(operatorSchemas.fault, ctx.body);
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
			return ok({ faults: traffic.faults.map((f) => ({ ...f, path: f.pathSource })) }, 201);
		},
		false,
	);
	r.add('GET', '/sandbox/faults', () => ok({ faults: traffic.faults.map((f) => ({ ...f, path: f.pathSource })) }), false);
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

	r.add('POST', '/sandbox/webhooks/flush', async () => ok({ attempted: await webhooks.flush() }), false);
	r.add(
		'GET',
		'/sandbox/webhooks/attempts',
		(ctx) => {
			const id = ctx.query.get('endpointId');
			return ok({ attempts: webhooks.attemptsLog.filter((a) => !id || a.endpointId === id) });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/rulesets/:id/deactivate',
		(ctx) => {
			const rs = core.rulesets.get(ctx.params.id);
			if (!rs) fail(404, 'ruleset_not_found');
			rs.status = 'DEACTIVATED';
			rs.updatedAt = core.iso();
			return ok(publicRuleset(rs));
		},
		false,
	);

	// A transfer to a ruleset's dedicated address creates an order linked to the ruleset (and attributes it).
	r.add(
		'POST',
		'/sandbox/rulesets/:id/deposits',
		(ctx) => {
			const b = parse(operatorSchemas.rulesetDeposit, ctx.body);
			const rs = core.rulesets.get(ctx.params.id);
			if (!rs) fail(404, 'ruleset_not_found');
			if (rs.status !== 'ACTIVE') fail(409, 'ruleset_deactivated');
			if (!rs.addresses.some((a) => a.chain === b.chain && a.status === 'ACTIVE'))
				fail(409, 'address_not_provisioned', `No provisioned ${b.chain} address yet`);
			if (!SUPPORTED_ASSETS.some((x) => x.chain === b.chain && x.symbol === b.asset)) fail(400, 'unsupported_asset', `${b.asset} on ${b.chain}`);
			const account = core.accounts.get(rs.accountId)!;
			const sender = normalizeAddress(b.chain, b.sender) ?? b.sender;
			const owner = core.accountWallet(account.id, b.chain, sender);
			const instant = rs.mode === 'INSTANT' && account.capabilities.includes('INSTANT_PAYMENT');
			const o = engine.createOrder({
				account,
				fromUserId: owner?.user.id ?? null,
				toAddress: rs.toAddress,
				toChain: rs.deliveredChain,
				asset: rs.deliveredAsset,
				amountUsd: b.amountUsd,
				memo: null,
				mode: instant ? 'instant' : 'standard',
				expiresAt: core.iso(core.now() + 86400_000),
				rulesetId: rs.id,
			});
			const tx = recordChainTx({ paymentOrderId: o.id, accountId: account.id, sender, chain: b.chain, asset: b.asset, amountUsd: b.amountUsd, indexed: true });
			if (owner?.status === 'ACTIVE') {
				tx.attributedTo = o.id;
				engine.attribute(o, tx.hash, sender, b.chain, b.asset, b.amountUsd);
			}
			return ok({ paymentOrderId: o.id, transactionHash: tx.hash, attributed: !!tx.attributedTo }, 201);
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/rewards/rules/:id/archive',
		(ctx) => {
			const rule = core.rules.get(ctx.params.id);
			if (!rule) fail(404, 'rule_not_found');
			rule.status = 'archived';
			rule.updatedAt = core.iso();
			return ok({ id: rule.id, status: rule.status });
		},
		false,
	);

	// The outbox stands in for Slack, a spreadsheet or any tool that needs an account: the examples
	// post what they would have sent here, so they publish and run against the sandbox as imported.
	const outbox: Array<{ seq: number; channel: string; at: string; body: unknown }> = [];
	let outboxSeq = 0;
	r.add(
		'POST',
		'/sandbox/outbox/:channel',
		(ctx) => {
			outbox.push({ seq: ++outboxSeq, channel: ctx.params.channel, at: core.iso(), body: ctx.body });
			if (outbox.length > 1000) outbox.shift();
			return ok({ received: true, seq: outboxSeq }, 201);
		},
		false,
	);
	r.add(
		'GET',
		'/sandbox/outbox',
		(ctx) => {
			const channel = ctx.query.get('channel');
			return ok({ messages: outbox.filter((m) => !channel || m.channel === channel) });
		},
		false,
	);

	// What the browser console (sandbox/console/) shows: newest first, bounded, never a secret.
	r.add(
		'GET',
		'/sandbox/overview',
		() => {
			const newest = <T>(list: T[], n: number) => list.slice(-n).reverse();
			const timeoutMs = webhooks.attemptTimeoutMs();
			const at = (ms: number) => core.iso(ms);
			return ok({
				epoch: core.data.epoch,
				lastNetting,
				orders: newest(core.data.orders, 100).map((o) => {
					const surplus = surplusView(o, engine);
					return {
						id: o.id,
						memo: o.memo,
						amountUsd: o.amountUsd,
						asset: o.asset,
						toChain: o.toChain,
						toAddress: o.toAddress,
						status: o.status,
						receivedTotal: o.receivedTotal,
						createdAt: o.createdAt,
						accountId: o.internal.accountId,
						surplusUsd: surplus?.surplusUsd ?? null,
						surplus: surplus?.says ?? null,
						netting: nettingView(o, core.data.epoch),
					};
				}),
				endpoints: core.data.endpoints
					.filter((e) => !e.deletedAt)
					.map((e) => ({
						id: e.id,
						url: e.url,
						description: e.description,
						name: endpointName(e),
						status: e.status,
						consecutiveFailures: e.consecutiveFailures,
						disabledAt: e.disabledAt,
						disabledReason: disabledReason(e, core.data.deliveries),
					})),
				deliveries: newest(core.data.deliveries, 100).map((d) => {
					let order: { id?: string; status?: string; memo?: string | null; version?: number } | undefined;
					try {
						order = (JSON.parse(d.rawBody) as { data?: { payment_order?: typeof order } }).data?.payment_order;
					} catch {
						// not an order event
					}
					return {
						id: d.id,
						endpointId: d.endpointId,
						type: d.publicEventType,
						status: d.status,
						attempts: d.attempts.length,
						lastStatusCode: d.lastStatusCode,
						orderStatus: order?.status ?? null,
						orderId: order?.id ?? null,
						memo: order?.memo ?? null,
						replayOf: d.replayOf ?? null,
						createdAt: d.createdAt,
						...deliveryView(d, timeoutMs, at),
						// The last ten answers, oldest first (the receiver's body as it came, first 512 characters).
						answers: d.attempts.slice(-10).map((a) => ({
							attempt: a.attempt,
							at: a.startedAt,
							statusCode: a.statusCode,
							error: a.error,
							durationMs: a.durationMs,
							body: a.responseSnippet,
							says: attemptSays(a, timeoutMs),
						})),
					};
				}),
				outbox: newest(outbox, 50),
				faults: traffic.faults.map((f) => ({ ...f, path: f.pathSource })),
			});
		},
		false,
	);
}
