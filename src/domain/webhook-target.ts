// Which URL and secret a gateway event goes to, in the spec's order: the session's own
// webhook_url, the channel's webhook, a channel-scoped settings row, the merchant-wide row.
// The merchant API has one source: the merchant-wide settings row of api "merchant".

export interface SettingsRow { id: string; channelId: string | null; url: string; secrets: string[]; events: string[] | null }
export interface ChannelHook { url: string; secrets: string[] }

export interface GatewayTargetInput {
  sessionWebhookUrl: string | null;
  channelId: string | null;
  channelHook: ChannelHook | null;
  /** The channel's own secrets even when it has no URL: a session's webhook_url signs with them first. */
  channelSecrets?: string[] | null;
  rows: SettingsRow[];
  eventType: string;
}

export interface Target { url: string; secrets: string[]; settingsId: string | null }

const wants = (row: SettingsRow, type: string) => row.events === null || row.events.includes(type);

export function resolveGatewayTarget(i: GatewayTargetInput): Target | null {
  const merchantWide = i.rows.find((r) => r.channelId === null) ?? null;
  const channelRow = i.channelId ? i.rows.find((r) => r.channelId === i.channelId) ?? null : null;
  // The session and channel URLs have no secret of their own: they sign with the most specific row's.
  const signer = channelRow ?? merchantWide;
  if (i.sessionWebhookUrl) {
    const secrets = i.channelHook?.secrets ?? i.channelSecrets ?? signer?.secrets;
    return secrets ? { url: i.sessionWebhookUrl, secrets, settingsId: signer?.id ?? null } : null; // nothing to sign with: not sent
  }
  if (i.channelHook) return { url: i.channelHook.url, secrets: i.channelHook.secrets, settingsId: null };
  if (channelRow) return wants(channelRow, i.eventType) ? { url: channelRow.url, secrets: channelRow.secrets, settingsId: channelRow.id } : null;
  if (merchantWide) return wants(merchantWide, i.eventType) ? { url: merchantWide.url, secrets: merchantWide.secrets, settingsId: merchantWide.id } : null;
  return null;
}
