// `svc-node explorer …`: operator commands on a node's explorer. `set-tier` moves an API key to
// another tier through the running node's admin route (src/explorer/admin.ts), authorised by the
// credential file the node keeps in its data dir; with no node running it says so and changes nothing.
import path from 'node:path';
import { Argument, Option, type Command } from 'commander';
import { ADMIN_FILE, ADMIN_TIER_PATH, readAdminCredential, type TierView } from '../explorer/admin-credential.js';
import type { ApiKeyTier } from '../explorer/auth/store.js';
import { explorer as explorerParams, type NetworkName } from '../params.js';
import { UsageError } from './start-options.js';
import { SvcError } from '../errors.js';

const NETWORKS: readonly NetworkName[] = ['devnet', 'testnet', 'mainnet'];
const TIERS = Object.keys(explorerParams.tiers) as ApiKeyTier[];

/** Raised when the node cannot be reached or refuses the change; the CLI exits with code 1. */
export class OperatorCommandError extends SvcError {
  override readonly name = 'OperatorCommandError';
  override readonly code = 'OPERATOR_COMMAND';
}

interface DataDirFlags {
  network: NetworkName;
  dataDir?: string;
}

/** The data dir as `svc-node start` resolves it from the same flags. */
function dataDirOf(flags: DataDirFlags): string {
  return path.resolve(process.cwd(), flags.dataDir ?? path.join('.svc-data', flags.network));
}

/** Sets a key's tier through the running node on `dataDir`. */
export async function setTierOnRunningNode(dataDir: string, keyId: string, tier: ApiKeyTier): Promise<TierView> {
  const credential = readAdminCredential(dataDir);
  if (credential === undefined) {
    throw new OperatorCommandError(
      `no node is running on ${dataDir} (no ${ADMIN_FILE}): the tier is set through the running node, so start it (svc-node start) and run this again`,
    );
  }
  let res: Response;
  try {
    res = await fetch(`${credential.url}${ADMIN_TIER_PATH.replace(':id', keyId)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tier }),
    });
  } catch (err) {
    const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
    throw new OperatorCommandError(`the node of ${dataDir} does not answer at ${credential.url} (${cause}): is it running?`);
  }
  const body = (await res.json().catch(() => ({}))) as { ok?: boolean; data?: TierView; error?: string };
  if (!res.ok || body.ok !== true || body.data === undefined) {
    throw new OperatorCommandError(`the node refused: ${body.error ?? `HTTP ${res.status}`}`);
  }
  return body.data;
}

/** Adds `explorer set-tier` to the program. */
export function addExplorerCommands(program: Command): void {
  const explorer = program.command('explorer').description("operator commands on the node's explorer");
  explorer
    .command('set-tier')
    .description(`move an API key to another tier (${TIERS.join(', ')}) on the running node of --data-dir; takes effect at once`)
    .addArgument(new Argument('<key-id>', 'id of the API key (the id field of GET /api/v1/api-keys, 32 hex characters)'))
    .addArgument(new Argument('<tier>', 'the new tier').choices(TIERS))
    .addOption(new Option('--network <name>', 'network of the node').choices(NETWORKS).default('devnet').env('SVC_NETWORK'))
    .addOption(new Option('--data-dir <dir>', "the node's data dir (default: ./.svc-data/<network>)").env('SVC_DATA_DIR'))
    .action(async (keyId: string, tier: ApiKeyTier, flags: DataDirFlags) => {
      if (!/^[0-9a-f]{32}$/.test(keyId)) throw new UsageError(`key id "${keyId}" is not 32 lowercase hex characters (the id field of GET /api/v1/api-keys)`);
      const view = await setTierOnRunningNode(dataDirOf(flags), keyId, tier);
      const daily = view.dailyLimit === null ? 'no daily limit' : `${view.dailyLimit} per UTC day`;
      process.stdout.write(`API key ${view.id} is now ${view.tier}: ${view.perSecond} requests per second, ${daily}\n`);
    });
}
