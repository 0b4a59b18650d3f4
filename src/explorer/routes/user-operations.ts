// User operations (ERC-4337) of the genesis EntryPoints: the recent ones a page at a time, and one
// by its hash with its bundle transaction and its logs. Listed under Transactions (an operation
// lives inside its bundle transaction); an address's own are under Addresses.
import { object, pageParams, pageSchema, routes, schemas, type Api, type FromSchema } from '../schema.js';
import { logSchema, userOperationSchema } from './shapes.js';

const located = {
  transactionHash: { type: 'string', description: 'the bundle transaction (handleOps) that ran it' },
  blockNumber: { type: 'integer' },
  logIndex: { type: 'integer', description: 'its UserOperationEvent in the block' },
} as const;

/** A user operation with where its event is. */
export const locatedUserOperationSchema = object({ ...userOperationSchema.properties, ...located }, [], userOperationSchema.description);
export type LocatedUserOperation = FromSchema<typeof locatedUserOperationSchema>;

export const userOperationRouteDefs = routes([
  {
    id: 'listUserOperations',
    method: 'GET',
    path: '/user-operations',
    category: 'Transactions',
    summary:
      "ERC-4337 user operations run through a genesis EntryPoint (v0.6, v0.7), newest first, from the EntryPoints' UserOperationEvent logs over the last rpc.userOperationLookbackBlocks blocks.",
    auth: 'public',
    params: [...pageParams],
    response: pageSchema(locatedUserOperationSchema),
  },
  {
    id: 'getUserOperation',
    method: 'GET',
    path: '/user-operations/{hash}',
    category: 'Transactions',
    summary:
      'One user operation by its hash (found as eth_getUserOperationReceipt finds it): sender, paymaster, nonce, success, actual gas cost and used, the bundle transaction, its bundler and block, and the logs of its execution.',
    auth: 'public',
    params: [{ name: 'hash', in: 'path', description: 'the user operation hash', schema: schemas.hash }],
    response: object(
      {
        ...locatedUserOperationSchema.properties,
        timestamp: { type: 'integer', description: 'Unix seconds of its block' },
        bundler: { type: 'string', description: 'the account that sent the bundle transaction' },
        logs: {
          type: 'array',
          description: "the logs of the operation's execution (between its EntryPoint's BeforeExecution or the previous operation's event and its own)",
          items: logSchema,
        },
      },
      [],
      userOperationSchema.description,
    ),
  },
]);

export type UserOperationApi = Api<typeof userOperationRouteDefs>;
