import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { UsdAmount } from '../../../shared/amounts';
import { isDryRun, noteFinding } from '../dryRun';
import { checkSpendLimits, dryRunAccountLimits, refuseOverSpendLimits } from '../spendLimits';
import { checkChainAndAsset, matchChainAndAsset } from '../supportedAssets';
import { subaccountQuery } from '../parameters';

const CREATE = { operation: 'Payment Order → Create', sends: 'order' };

/**
 * Payment Order → Create's guards of one order, in the order a dry run reports them, just before it is
 * sent: the spend limits (actions/spendLimits.ts), the chain and asset against the supported pairs
 * (actions/supportedAssets.ts) and, in a dry run, the account limits.
 */
export async function guardOrder(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, amount: UsdAmount): Promise<void> {
	// The chain and asset as the service names them first: the spend limits compare the values sent.
	await matchChainAndAsset(ctx, itemIndex, body, CREATE);
	const order = termsOf(body, amount);
	checkSpendLimits(ctx, itemIndex, order);
	await checkChainAndAsset(ctx, itemIndex, body, CREATE);
	if (!isDryRun(ctx)) return;
	noteFinding(ctx, itemIndex, `Supported assets: ${order.asset} on ${order.toChain} is supported`);
	await dryRunAccountLimits(ctx, itemIndex, amount, subaccountQuery(body));
}

/**
 * The same guards as a row's own check, run for every row before any row is sent (the router's
 * checkRow): no dry-run notes, no account limits. `body` is a copy: its chain and asset are matched in it.
 */
export async function checkOrderTerms(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, amount: UsdAmount): Promise<void> {
	await matchChainAndAsset(ctx, itemIndex, body, CREATE);
	refuseOverSpendLimits(ctx, itemIndex, termsOf(body, amount));
	await checkChainAndAsset(ctx, itemIndex, body, CREATE);
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
