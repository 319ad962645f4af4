/** The path parameter of every route on one endpoint. */
export const EndpointIdParams = {
  id: { description: 'The webhook endpoint id (`whe_…`). A malformed, unknown or other account’s id answers the same 404.' },
};

export const DeliveryParams = {
  ...EndpointIdParams,
  delivery_id: { description: 'A delivery of that endpoint (`whd_…`). A malformed or unknown id, or one of another endpoint, answers the same 404.' },
};
