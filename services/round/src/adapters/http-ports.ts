import type { DrawnCard, ShoePort, ShoeSummary, WalletPort } from '@croupier/contracts';
import { DomainError } from '@croupier/contracts';
import type { ServiceClient } from '@croupier/http';

/** The shoe service in another process, through its internal routes. */
export class HttpShoePort implements ShoePort {
  constructor(private readonly client: ServiceClient) {}

  startShoe(
    input: Parameters<ShoePort['startShoe']>[0],
    context: Parameters<ShoePort['startShoe']>[1],
  ) {
    return this.client.call<ShoeSummary>(
      'POST',
      `/internal/v1/tables/${input.tableId}/shoes`,
      context,
      {
        number: input.number,
        config: input.config,
      },
    );
  }

  async getShoe(shoeId: string): Promise<ShoeSummary | null> {
    try {
      return await this.client.call<ShoeSummary>('GET', `/internal/v1/shoes/${shoeId}`, null);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'SHOE_NOT_FOUND') return null;
      throw error;
    }
  }

  drawRound(
    input: Parameters<ShoePort['drawRound']>[0],
    context: Parameters<ShoePort['drawRound']>[1],
  ) {
    return this.client.call<DrawnCard[]>(
      'POST',
      `/internal/v1/shoes/${input.shoeId}/rounds/${input.roundId}/draw`,
      context,
      {
        roundNumber: input.roundNumber,
      },
    );
  }

  drawScannedCard(
    input: Parameters<ShoePort['drawScannedCard']>[0],
    context: Parameters<ShoePort['drawScannedCard']>[1],
  ) {
    const { shoeId, roundId, ...body } = input;
    return this.client.call<DrawnCard>(
      'POST',
      `/internal/v1/shoes/${shoeId}/rounds/${roundId}/cards`,
      context,
      body,
    );
  }

  sealRound(
    input: Parameters<ShoePort['sealRound']>[0],
    context: Parameters<ShoePort['sealRound']>[1],
  ) {
    return this.client.call<DrawnCard[]>(
      'POST',
      `/internal/v1/shoes/${input.shoeId}/rounds/${input.roundId}/seal`,
      context,
      {},
    );
  }

  roundCards(shoeId: string, roundId: string) {
    return this.client.call<DrawnCard[]>(
      'GET',
      `/internal/v1/shoes/${shoeId}/rounds/${roundId}/cards`,
      null,
    );
  }

  async correctCard(
    input: Parameters<ShoePort['correctCard']>[0],
    context: Parameters<ShoePort['correctCard']>[1],
  ) {
    const { shoeId, roundId, ...body } = input;
    await this.client.call(
      'POST',
      `/internal/v1/shoes/${shoeId}/rounds/${roundId}/correction`,
      context,
      body,
    );
  }

  reportCutCard(
    input: Parameters<ShoePort['reportCutCard']>[0],
    context: Parameters<ShoePort['reportCutCard']>[1],
  ) {
    return this.client.call<ShoeSummary>(
      'POST',
      `/internal/v1/shoes/${input.shoeId}/rounds/${input.roundId}/cut-card`,
      context,
      {
        roundNumber: input.roundNumber,
      },
    );
  }

  burnScannedCard(
    input: Parameters<ShoePort['burnScannedCard']>[0],
    context: Parameters<ShoePort['burnScannedCard']>[1],
  ) {
    return this.client.call<ShoeSummary>(
      'POST',
      `/internal/v1/shoes/${input.shoeId}/burn`,
      context,
      { shownCard: input.shownCard },
    );
  }

  closeShoe(
    input: Parameters<ShoePort['closeShoe']>[0],
    context: Parameters<ShoePort['closeShoe']>[1],
  ) {
    return this.client.call<ShoeSummary>(
      'POST',
      `/internal/v1/shoes/${input.shoeId}/close`,
      context,
      { reason: input.reason },
    );
  }
}

/** The wallet service in another process, through its internal routes. */
export class HttpWalletPort implements WalletPort {
  constructor(private readonly client: ServiceClient) {}

  async debitStakes(
    input: Parameters<WalletPort['debitStakes']>[0],
    context: Parameters<WalletPort['debitStakes']>[1],
  ) {
    const { playerId, ...body } = input;
    return this.client.call<Awaited<ReturnType<WalletPort['debitStakes']>>>(
      'POST',
      `/internal/v1/wallets/${playerId}/stakes`,
      context,
      body,
    );
  }

  async refundStake(
    input: Parameters<WalletPort['refundStake']>[0],
    context: Parameters<WalletPort['refundStake']>[1],
  ) {
    const { playerId, betId, ...body } = input;
    return this.client.call<Awaited<ReturnType<WalletPort['refundStake']>>>(
      'POST',
      `/internal/v1/wallets/${playerId}/stakes/${betId}/refund`,
      context,
      body,
    );
  }
}
