/*
 * service.h - what dc-sign --via-service and dc-signd agree on
 * (dc-signd(8), PROTOCOL).
 *
 * The client connects to the unix stream socket, writes the probe spec
 * (JSON, optionally gzip) and shuts down its writing side.  The service
 * answers with either the signed spec (a JSON object, first byte '{') or
 * one line "error: REASON\n", then closes the connection.
 */
#ifndef DC_SIGN_SERVICE_H
#define DC_SIGN_SERVICE_H

#define DC_SIGN_SOCKET_DEFAULT "/run/datacrumbs/sign.sock"
#define DC_SIGN_SOCKET_ENV "DC_SIGN_SOCKET"
#define DC_SIGN_REQUEST_MAX (16u << 20)  /* request bytes accepted */
#define DC_SIGN_TIMEOUT_S 30             /* per read/write on the socket,
                                            and for the target check */
#define DC_SIGN_REQUEST_TIMEOUT_S 120    /* a whole connection */

#endif /* DC_SIGN_SERVICE_H */
