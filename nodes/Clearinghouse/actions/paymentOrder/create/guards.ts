import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { UsdAmount } from '../../../../shared/amounts';
import { isDryRun, noteFinding } from '../../dryRun';
import { checkSpendLimits, dryRunAccountLimits } from './spendLimits';
import { checkChainAndAsset, matchChainAndAsset } from '../../supportedAssets';
import { operationError, subaccountQuery } from '../../parameters';
import { readAccountLimits } from '../../accountLimits';
import { limitBreaches } from '../../../../shared/limits';

const CREATE = { operation: 'Payment Order → Create', sends: 'order' };

/**
 * Payment Order → Create's guards of one order, in the order a dry run reports them, just before it is
 * sent: the spend limits (spendLimits.ts), the chain and asset against the supported pairs
 * (actions/supportedAssets.ts) and, in a dry run, the account limits. `rowCheck`: the same guards as a
 * row's own check, run for every row before any row is sent (the router's checkRow), without a dry
 * run's notes and account limits; `body` is then a copy (its chain and asset are matched in it).
 */
export async function guardOrder(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, amount: UsdAmount, rowCheck = false): Promise<void> {
	// The chain and asset as the service names them first: the spend limits compare the values sent.
	await matchChainAndAsset(ctx, itemIndex, body, CREATE);
	const order = termsOf(body, amount);
	checkSpendLimits(ctx, itemIndex, order, !rowCheck);
	await checkChainAndAsset(ctx, itemIndex, body, CREATE);
	if (rowCheck || !isDryRun(ctx)) return;
	noteFinding(ctx, itemIndex, `Supported assets: ${order.asset} on ${order.toChain} is supported`);
	await dryRunAccountLimits(ctx, itemIndex, amount, subaccountQuery(body));
}

function termsOf(body: IDataObject, amount: UsdAmount) {
	return {
		fromUserId: String(body.fromUserId ?? ''),
		toAddress: String(body.toAddress ?? ''),
		toChain: String(body.toChain ?? ''),
		asset: String(body.asset ?? ''),
		amount,
	};
}

/**
 * Create's pre-flight (Options → Check Account Limits First): refuse, before anything is sent, an
 * order that would not fit the account's limits (in a dry run, the run's one read: nothing was sent).
 */
export async function checkAccountLimits(ctx: IExecuteFunctions, itemIndex: number, amount: UsdAmount, subaccount: IDataObject | undefined): Promise<void> {
	const limits = await readAccountLimits(ctx, itemIndex, subaccount, !isDryRun(ctx));
	const checked = limitBreaches(limits, { order: amount });
	if ('unreadable' in checked) {
		throw operationError(
			ctx,
			checked.unreadable.message,
			itemIndex,
			'Nothing was sent. Options → Check Account Limits First reads GET /account/limits and sends no order it cannot check against them.',
		);
	}
	const problems = checked.breaches;
	if (problems.length > 0) {
		throw operationError(
			ctx,
			`The payment would breach the account limits: ${problems.join('; ')}`,
			itemIndex,
			'Nothing was sent. Limits belong to the parent account and count every subaccount; lower the amount or wait for the window or day to roll over.',
		);
	}
}
