/** Operator API, accounts: the state at a glance, reset, wallet activation, account settings, subaccounts and keys. */
import { z } from 'zod';
import type { Router } from '../router';
import { parse } from '../schemas';
import type { Services } from '../services';
import { Account, Limits, SUPPORTED_ASSETS } from '../state';
import { fail, hex, normalizeAddress, uuid } from '../util';
import { accountOf, ok, type OperatorState } from './shared';

// null removes a limit: the service may answer without the daily limits.
const limitsSchema = z.object({
	maxTxUsd: z.number().positive().nullable().optional(),
	maxCountPerEpoch: z.number().int().nonnegative().nullable().optional(),
	maxValuePerEpochUsd: z.number().nonnegative().nullable().optional(),
	maxCountPerDay: z.number().int().nonnegative().nullable().optional(),
	maxValuePerDayUsd: z.number().nonnegative().nullable().optional(),
});
const schemas = {
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
};

const accountView = (a: Account) => ({ ...a });

export function registerAccountOperator(r: Router, svc: Services, state: OperatorState): void {
	const { core, engine, webhooks, traffic } = svc;

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
			const b = parse(schemas.reset, ctx.body);
			core.reset(b.seed ?? core.data.seed);
			traffic.faults = [];
			webhooks.attemptsLog = [];
			state.lastNetting = null;
			return ok({ ok: true, seed: core.data.seed });
		},
		false,
	);

	r.add(
		'POST',
		'/sandbox/wallets/activate',
		(ctx) => {
			const b = parse(schemas.activate, ctx.body);
			const status = b.status ?? 'ACTIVE';
			const accountId = b.subaccountId ? accountOf(core, b.subaccountId).id : null;
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
			const b = parse(schemas.account, ctx.body);
			const a = accountOf(core, b.subaccountId);
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
			const b = parse(schemas.subaccount, ctx.body);
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
			const b = parse(schemas.apiKey, ctx.body);
			const a = accountOf(core, b.subaccountId);
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
			const b = parse(schemas.subaccount, ctx.body);
			const a = accountOf(core, ctx.params.id);
			if (b.name !== undefined) a.name = b.name;
			if (b.status !== undefined) a.status = b.status;
			if (b.kyb !== undefined) a.kyb = b.kyb;
			if (b.provisioned !== undefined) a.provisioned = b.provisioned;
			if (b.archived !== undefined) a.archived = b.archived;
			return ok(accountView(a));
		},
		false,
	);
}
