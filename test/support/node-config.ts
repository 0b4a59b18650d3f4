// The configuration of an in-process test node: a devnet on loopback with every listener on a free
// port, quiet logs, the RPC rate limit off, loopback exempt from the explorer's limits, and compute
// mode pow without a search thread (mode none).
import type { NodeConfig } from '../../src/config.js';
import { CHAIN_ID } from '../../src/params.js';

export function devnetConfig(dataDir: string, overrides: Partial<NodeConfig> = {}): NodeConfig {
  return {
    network: 'devnet',
    chainId: CHAIN_ID.devnet,
    dataDir,
    rpcHost: '127.0.0.1',
    rpcPort: 0,
    wsPort: 0,
    explorerPort: 0,
    blockTimeMs: 200,
    logLevel: 'silent',
    rpcRateLimit: 0,
    rateLimitExemptLoopback: true,
    // No proof-of-work search unless a test asks for it: it would take a core from every test node.
    powThreads: 0,
    ...overrides,
  };
}
