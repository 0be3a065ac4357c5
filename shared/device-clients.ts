// The device-flow clients (RFC 8628 client_id) the server knows without configuration: the till CLI.
// Others are registered with TILL_DEVICE_CLIENTS; an unknown client_id is answered invalid_client.

export const CLI_DEVICE_CLIENT = { id: "till-cli", name: "till CLI" } as const;
