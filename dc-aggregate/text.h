/*
 * text.h - print a datacrumbs stream as text, one line per frame or event.
 *
 * The form is the one dc-aggregate --text documents in dc-aggregate(1),
 * and mostly the description language of the test generator dc-mkstream,
 * so tests can compare streams line by line.
 */
#ifndef DC_AGG_TEXT_H
#define DC_AGG_TEXT_H

#include <stdint.h>
#include <stdio.h>

#include "stream.h"
#include "u64map.h"

void text_header(FILE *f, const struct dc_stream_info *info);
/* Print one frame; STRING frames are remembered in strings (id -> the
 * string, a char *; the caller's, zeroed at first) so events can show
 * the path their file_id names. */
void text_frame(FILE *f, struct u64map *strings, uint16_t type,
		const unsigned char *data, uint32_t len);

#endif /* DC_AGG_TEXT_H */
