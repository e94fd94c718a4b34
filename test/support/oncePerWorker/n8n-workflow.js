// Loaded once per jest worker: see environment.js.
module.exports = globalThis.__requireOncePerWorker('n8n-workflow');
