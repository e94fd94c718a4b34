import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** What every `<operation>.operation.ts` exports: its own fields and how it runs for one item. */
export interface Operation {
	description: INodeProperties[];
	/** Runs the operation for one input item; an array becomes one output item per record. */
	execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
	/**
	 * Optional checks over the whole batch, run by the router once per run of the node before any
	 * item starts (so they hold under Concurrency > 1). A throw fails every item and sends nothing.
	 */
	preflight?(ctx: IExecuteFunctions, itemCount: number): Promise<void>;
	/**
	 * Optional: the row's own checks (its fields, amount, chain and asset, spend limits, key), run by
	 * the router for every row before any row is sent. Sends no write (a read such as GET
	 * /supported-assets is allowed). A throw is the row's problem: without Continue On Fail the run
	 * sends nothing and one error lists every such row; with it, the row fails and the others run.
	 */
	checkRow?(ctx: IExecuteFunctions, itemIndex: number): Promise<void>;
	/**
	 * Optional: how a person knows the item's row (a Business Key, a memo), for errors that name a
	 * row. Undefined when the item has none; never throws.
	 */
	rowReference?(ctx: IExecuteFunctions, itemIndex: number): string | undefined;
	/**
	 * Optional: what the rows that succeeded before a row failed made, in the operation's words, for
	 * the run's error (a person who runs the batch again must know): `made` ends the message's count
	 * ("…already succeeded: 2 payment orders made or found"), `detail` opens its description. Without
	 * it the router says their results are not in the output.
	 */
	succeededRows?(ctx: IExecuteFunctions, records: IDataObject[]): { made: string; detail: string };
}
