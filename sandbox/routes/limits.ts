/** `GET /account/limits`: the parent account's ceilings and what this epoch and day have used. */
import type { Router } from '../router';
import { parse, queryObject, requestSchemas } from '../schemas';
import type { Services } from '../services';

export function registerLimits(r: Router, svc: Services): void {
	const { core } = svc;

	r.add('GET', '/api/v1/account/limits', (ctx) => {
		const q = parse(requestSchemas.scopeQuery, queryObject(ctx.query));
		const [acc] = core.readScope(ctx.auth, q.subaccountId, q.includeSubaccounts);
		return { status: 200, body: svc.engine.limitsView(acc) };
	});
}
