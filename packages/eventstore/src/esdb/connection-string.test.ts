import { EventStoreDBClient } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';

/**
 * The schemes the client library parses, which @croupier/runtime's EVENTSTORE_URL check mirrors
 * (docs/deployment.md): if an upgrade of the client takes kurrentdb://, this fails, and the
 * check and the document can follow it.
 */
describe('EventStoreDB connection strings (@eventstore/db-client)', () => {
  it('parses esdb:// and esdb+discover:// without connecting', async () => {
    for (const url of [
      'esdb://node1:2113,node2:2113,node3:2113?tls=false',
      'esdb+discover://cluster.example:2113?tls=false',
    ]) {
      const client = EventStoreDBClient.connectionString(url);
      await client.dispose();
    }
  });

  it('refuses kurrentdb://', () => {
    expect(() => EventStoreDBClient.connectionString('kurrentdb://node1:2113?tls=false')).toThrow(
      /expected esdb:\/\/ or esdb\+discover:\/\//,
    );
  });
});
