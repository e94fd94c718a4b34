/** Operator API, the chain: transfers to deposit addresses (an order's, or a ruleset's), the indexer, deposit progress. */
import { z } from 'zod';
import type { Router } from '../router';
import { parse } from '../schemas';
import type { Services } from '../services';
import { ChainTx, SUPPORTED_ASSETS } from '../state';
import { fail, normalizeAddress, txHashFor, uuid } from '../util';
import { ok, orderOf } from './shared';

const schemas = {
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
	rulesetDeposit: z.object({ sender: z.string().min(1), chain: z.string(), asset: z.string(), amountUsd: z.number().positive() }),
};

export function registerChainOperator(r: Router, svc: Services): void {
	const { core, engine } = svc;
	/** A simulated on-chain transfer, not yet attributed to an order. */
	const recordChainTx = (f: Omit<ChainTx, 'hash' | 'attributedTo' | 'createdAt'>): ChainTx => {
		const tx: ChainTx = { hash: txHashFor(f.chain, uuid()), ...f, attributedTo: null, createdAt: core.iso() };
		core.data.chainTxs.push(tx);
		core.chainTxs.set(tx.hash, tx);
		return tx;
	};

	r.add(
		'POST',
		'/sandbox/deposits',
		(ctx) => {
			const b = parse(schemas.deposit, ctx.body);
			const o = orderOf(core, b.paymentOrderId);
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
			const b = parse(schemas.depositStatus, ctx.body);
			const tx = core.chainTxs.get(ctx.params.hash);
			const o = tx?.attributedTo ? core.orders.get(tx.attributedTo) : undefined;
			const t = o?.inboundTransfers.find((x) => x.transactionHash === ctx.params.hash);
			if (!o || !t) fail(404, 'deposit_not_attributed', 'No attributed deposit with that hash');
			engine.setDepositStatus(o, t, b.status);
			return ok({ paymentOrderId: o.id, transfer: t, orderStatus: o.status, orderVersion: o.version });
		},
		false,
	);

	// A transfer to a ruleset's dedicated address creates an order linked to the ruleset (and attributes it).
	r.add(
		'POST',
		'/sandbox/rulesets/:id/deposits',
		(ctx) => {
			const b = parse(schemas.rulesetDeposit, ctx.body);
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
}
