import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { UsdAmount } from '../../../shared/amounts';
import { isDryRun, noteFinding } from '../dryRun';
import { checkSpendLimits, dryRunAccountLimits } from '../spendLimits';
import { checkChainAndAsset } from '../supportedAssets';

const CREATE = { operation: 'Payment Order → Create', sends: 'order' };

/**
 * Payment Order → Create's guards of one order, in the order a dry run reports them, just before it is
 * sent: the spend limits (actions/spendLimits.ts), the chain and asset against the supported pairs
 * (actions/supportedAssets.ts) and, in a dry run, the account limits.
 */
export async function guardOrder(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, amount: UsdAmount): Promise<void> {
	const order = {
		fromUserId: String(body.fromUserId ?? ''),
		toAddress: String(body.toAddress ?? ''),
		toChain: String(body.toChain ?? ''),
		asset: String(body.asset ?? ''),
		amount,
	};
	checkSpendLimits(ctx, itemIndex, order);
	await checkChainAndAsset(ctx, itemIndex, body, CREATE);
	if (!isDryRun(ctx)) return;
	noteFinding(ctx, itemIndex, `Supported assets: ${order.asset} on ${order.toChain} is supported`);
	dryRunAccountLimits(ctx, itemIndex, amount);
}
