/** `GET /deposit-addresses`: where an account's senders fund their orders. */
import type { Router } from '../router';
import { parse, queryObject, requestSchemas } from '../schemas';
import type { Services } from '../services';
import { fail } from '../util';

export function registerDepositAddresses(r: Router, svc: Services): void {
	const { core } = svc;

	r.add('GET', '/api/v1/deposit-addresses', (ctx) => {
		const q = parse(requestSchemas.scopeQuery, queryObject(ctx.query));
		const [acc] = core.readScope(ctx.auth, q.subaccountId, q.includeSubaccounts);
		if (!acc.provisioned) fail(412, 'custody_wallet_not_provisioned', `The custody wallet of account ${acc.id} is not provisioned yet`);
		return { status: 200, body: { accountId: acc.id, depositAddresses: core.depositAddresses(acc) } };
	});
}
