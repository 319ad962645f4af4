/**
 * Starts Scalar's standalone bundle (loaded before this module by the page)
 * on the service's own document. Everything that would reach another origin
 * is off: web fonts, telemetry, the AI agent, the hosted client button.
 */

interface ScalarGlobal {
  createApiReference(target: string, configuration: Record<string, unknown>): unknown;
}

const scalar = (globalThis as { Scalar?: ScalarGlobal }).Scalar;
if (!scalar) throw new Error('The API reference renderer did not load.');

scalar.createApiReference('#app', {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  defaultOpenAllTags: false,
  metaData: { title: 'Workflow service API reference' },
});
