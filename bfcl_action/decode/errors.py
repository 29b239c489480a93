"""The one exception the decoders raise, carrying BFCL's `error_type` names.

Decoding model output can fail in two ways that BFCL reports differently, and a checker must
keep them apart to agree with the official verdicts:

- `ast_decoder:decoder_failed`: the text or structure could not be decoded at all (syntax
  error, unsupported expression, JSON that does not parse, input over a size or depth cap).
- `ast_decoder:decoder_wrong_output_format`: decoding succeeded but did not yield a list of
  `{name: {arguments}}` calls (e.g. FC arguments that are JSON but not an object, or a Java /
  JavaScript text with no call in it).

For irrelevance and relevance both simply mean "no call".
"""

from __future__ import annotations

from typing import Final, Literal

from bfcl_action.core.errors import BfclActionError

DECODER_FAILED: Final = "ast_decoder:decoder_failed"
WRONG_OUTPUT_FORMAT: Final = "ast_decoder:decoder_wrong_output_format"

DecodeErrorType = Literal["ast_decoder:decoder_failed", "ast_decoder:decoder_wrong_output_format"]


class DecodeError(BfclActionError):
    """Model output that does not decode to calls; `error_type` is BFCL's name for why.

    It is a verdict on the model's output, not a fault of the user: checkers catch it and
    record `error_type`; it subclasses `BfclActionError` only so an uncaught one still prints
    as one clean line.
    """

    def __init__(self, error_type: DecodeErrorType, message: str) -> None:
        self.error_type: DecodeErrorType = error_type
        super().__init__(message)


def failed(message: str) -> DecodeError:
    return DecodeError(DECODER_FAILED, message)


def wrong_format(message: str) -> DecodeError:
    return DecodeError(WRONG_OUTPUT_FORMAT, message)
