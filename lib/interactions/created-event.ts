import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { accountEventPut } from '#events/account-events.js';
import { isConditionFailure, type TableRef } from '#platform/table/table.js';
import { nameBasedUuid } from '#platform/uuid.js';
import type { AnnounceEvent } from '#webhooks/index.js';
import { interactionView } from './interactions.js';
import type { Interaction } from './model.js';

/**
 * The `interaction.created` event of the account's event record (decisions.md,
 * Webhooks). An interaction is created by a lone conditional Put
 * (`createOnce`), so its event is put right after it, at the interaction's
 * own `created_at` and with an id derived from the interaction's: every
 * repeat of the creation (a redelivered task finds the interaction there)
 * puts it again, and finds it there, and announces it again (the
 * dispatcher creates each delivery once).
 */
export async function recordInteractionCreated(table: TableRef, interaction: Interaction, announce: AnnounceEvent): Promise<void> {
  const event = { id: nameBasedUuid(`interaction.created:${interaction.id}`), type: 'interaction.created', data: interactionView(interaction) };
  const { Put } = accountEventPut(table, interaction.account_id, event, new Date(interaction.created_at));
  try {
    await table.db.send(new PutCommand(Put!));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  await announce(interaction.account_id, { id: event.id, type: event.type, created_at: new Date(interaction.created_at).toISOString() });
}
