// Package entry: n8n loads the nodes and credential listed in package.json's `n8n` block;
// this export lets code (and tests) import them directly too.
export { ClearinghouseApi } from './credentials/ClearinghouseApi.credentials';
export { Clearinghouse } from './nodes/Clearinghouse/Clearinghouse.node';
export { ClearinghouseTrigger } from './nodes/ClearinghouseTrigger/ClearinghouseTrigger.node';
