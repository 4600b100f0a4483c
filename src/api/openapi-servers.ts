// The servers of the OpenAPI document: one URL template whose base_url defaults to PUBLIC_BASE_URL.
// The merchant API lives under {base_url}/api/v2; the gateway, widget and SBP paths under the root.

function server(url: string, publicBaseUrl: string, description: string) {
  return {
    url, description,
    variables: { base_url: { default: publicBaseUrl, description: 'The public base URL of the engine (PUBLIC_BASE_URL), scheme and host, no trailing slash' } },
  };
}

/** The merchant API's server (the document's default). */
export function merchantServers(publicBaseUrl: string) {
  return [server('{base_url}/api/v2', publicBaseUrl, 'This engine: the merchant API')];
}

/** The root server, for paths outside /api/v2 (gateway API, widget, SBP lists). */
export function rootServers(publicBaseUrl: string) {
  return [server('{base_url}', publicBaseUrl, 'This engine: gateway API and public endpoints')];
}
