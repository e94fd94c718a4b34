import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** What every `<operation>.operation.ts` exports: its own fields and how it runs for one item. */
export interface Operation {
	description: INodeProperties[];
	/** Runs the operation for one input item; an array becomes one output item per record. */
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
}
