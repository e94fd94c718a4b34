/**
 * Users and their wallets: `POST /add-user-record` creates a user or adds wallets to one; `GET /users`
 * lists the caller's own users. The reference shows no read or list path; the list is modelled as the
 * field notes saw a third-party client use it: `GET /users?limit&offset` answering `{users, total}`.
 */
import type { Router } from '../router';
import { parse, queryObject, requestSchemas } from '../schemas';
import type { Services } from '../services';
import type { User } from '../state';
import { fail, normalizeAddress, uuid } from '../util';

/** Validates chain support and address shape; returns the normalized address. */
function checkedAddress(svc: Services, chain: string, address: string, path: string): string {
	if (!svc.core.isSupported(chain)) fail(400, 'validation_error', `${path}.chain: unsupported chain ${chain}`, { path: `${path}.chain` });
	const a = normalizeAddress(chain, address);
	if (!a) fail(400, 'validation_error', `${path}.address: not a valid ${chain} address`, { path: `${path}.address` });
	return a;
}

export function registerUsers(r: Router, svc: Services): void {
	const { core } = svc;

	// The caller's own account only (no subaccount scope: the client seen sends none), oldest first.
	r.add('GET', '/api/v1/users', (ctx) => {
		const q = parse(requestSchemas.listUsers, queryObject(ctx.query));
		const limit = q.limit ?? 100;
		const offset = q.offset ?? 0;
		const mine = core.data.users.filter((u) => u.accountId === ctx.auth.account.id);
		const users = mine.slice(offset, offset + limit).map((u) => ({
			id: u.id,
			label: u.label,
			accountId: u.accountId,
			wallets: u.wallets.map((w) => ({ ...w })),
			returnWallets: u.returnWallets,
			createdAt: u.createdAt,
		}));
		return { status: 200, body: { users, total: mine.length } };
	});

	r.add('POST', '/api/v1/add-user-record', (ctx) => {
		const b = parse(requestSchemas.addUser, ctx.body);
		const acc = core.writeScope(ctx.auth, b.subaccountId);
		const wallets = b.wallets.map((w, i) => ({ chain: w.chain, address: checkedAddress(svc, w.chain, w.address, `wallets[${i}]`) }));
		const returnWallets = b.returnWallets?.map((w, i) => ({ chain: w.chain, address: checkedAddress(svc, w.chain, w.address, `returnWallets[${i}]`) }));
		if (returnWallets && new Set(returnWallets.map((w) => w.chain)).size !== returnWallets.length) {
			fail(400, 'validation_error', 'returnWallets: one wallet per chain', { path: 'returnWallets' });
		}
		let user = core.data.users.find((u) => u.accountId === acc.id && u.label === b.label);
		const created = !user;
		if (!user) {
			user = { id: uuid(), accountId: acc.id, label: b.label, wallets: [], returnWallets: [], createdAt: core.iso() };
			core.data.users.push(user);
			core.users.set(user.id, user);
		}
		const u: User = user;
		const addWallet = (w: { chain: string; address: string }) => {
			if (!u.wallets.some((x) => x.chain === w.chain && x.address === w.address)) u.wallets.push({ ...w, status: 'PENDING' });
		};
		wallets.forEach(addWallet);
		if (returnWallets) {
			// A default return wallet is a wallet of the user; it is used only once ACTIVE.
			returnWallets.forEach(addWallet);
			u.returnWallets = returnWallets;
		}
		svc.engine.retryWaitingReturns();
		return {
			status: created ? 201 : 200,
			body: {
				message: created ? 'User created' : 'User updated',
				data: { id: u.id, label: u.label, accountId: u.accountId, wallets: u.wallets.map((w) => ({ ...w })), returnWallets: u.returnWallets },
			},
		};
	});
}
