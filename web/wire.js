// Generated from race/wire/page.py by `python -m race.wire.page`: do not edit.
// The wire's constants as the server has them (a unit test checks this file).

export const PROTOCOL_VERSION = 2;
export const MAX_MESSAGE_BYTES = 4096;
export const NAME_MAX = 20;
export const CLOSE_REPLACED = 4001;
export const CLOSE_REMOVED = 4002;
export const ROOM_CODE_TEXT = "[A-Za-z0-9]{1,16}";
export const RECORD_ID_TEXT = "[A-Za-z0-9_-]{12}";
export const DEVICE_KEY = new RegExp("^[A-Za-z0-9_-]{22,64}$");
