#!/usr/bin/env node
/** The published sandbox package's command (`npx n8n-nodes-clearinghouse-sandbox`): the same CLI as `npm run sandbox`. */
import './main';
