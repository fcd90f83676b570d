"""boto3/botocore (Bedrock Runtime), the real SDK, against the loopback fault server.

Bedrock answers errors in REST-JSON: the type in the ``x-amzn-ErrorType`` header (read by
boto/botocore botocore/parsers.py), the message in ``{"message": ...}``; the types,
statuses and messages are those of the AWS Bedrock API reference (Converse, errors:
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html) and
the threads cited per case. Streams are AWS event streams (vnd.amazon.eventstream), framed
here as botocore botocore/eventstream.py decodes them.
"""

import binascii
import json
import struct

import boto3
from botocore.config import Config

from llm_errors import ErrorCode

E = ErrorCode
_TYPE = "x-amzn-ErrorType"
# One session for the module: it loads the service model once (a new one per case costs
# a tenth of a second each).
_SESSION = boto3.session.Session()


def _error(status, kind, message):
    headers = {_TYPE: f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"}
    return {"status": status, "headers": headers, "json": {"message": message}}


def _header(name, value):
    """One event-stream header of type string (7)."""
    raw_name, raw_value = name.encode(), value.encode()
    return (
        bytes([len(raw_name)]) + raw_name + b"\x07" + struct.pack(">H", len(raw_value)) + raw_value
    )


def _frame(headers, payload):
    """One event-stream message: prelude, its CRC, headers, payload, message CRC."""
    head = b"".join(_header(k, v) for k, v in headers.items())
    prelude = struct.pack(">II", 16 + len(head) + len(payload), len(head))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    message = prelude + head + payload
    return message + struct.pack(">I", binascii.crc32(message))


def _event(kind, body):
    headers = {":event-type": kind, ":content-type": "application/json", ":message-type": "event"}
    return _frame(headers, json.dumps(body).encode())


def _exception(kind, message):
    headers = {
        ":exception-type": kind,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return _frame(headers, json.dumps({"message": message}).encode())


_STREAM = "application/vnd.amazon.eventstream"
_START = _event("messageStart", {"role": "assistant"})
_THROTTLED = "Too many requests, please wait before trying again."

#: case id -> (expected code, the type the SDK raises, reply spec)
CASES = {
    # ryanadoty/Amazon-Bedrock-Amazon-RDS-POC#9
    "status-400": (
        E.INVALID_REQUEST,
        "botocore.errorfactory.ValidationException",
        _error(
            400,
            "ValidationException",
            "Malformed input request: expected maxLength: 42000, actual: 46735, please reformat "
            "your input and try again.",
        ),
    ),
    # Bedrock sends no 401 of its own: the status alone, bare.
    "status-401": (E.AUTH, "botocore.exceptions.ClientError", {"status": 401}),
    # AWS Bedrock troubleshooting (AccessDeniedException):
    # https://docs.aws.amazon.com/bedrock/latest/userguide/troubleshooting-api-error-codes.html
    "status-403": (
        E.AUTH,
        "botocore.errorfactory.AccessDeniedException",
        _error(
            403,
            "AccessDeniedException",
            "You don't have access to the model with the specified model ID.",
        ),
    ),
    # The same page (ResourceNotFoundException).
    "status-404": (
        E.INVALID_REQUEST,
        "botocore.errorfactory.ResourceNotFoundException",
        _error(
            404,
            "ResourceNotFoundException",
            "Could not resolve the foundation model from the provided model identifier.",
        ),
    ),
    # The API reference's ModelTimeoutException (HTTP 408).
    "status-408": (
        E.TIMEOUT,
        "botocore.errorfactory.ModelTimeoutException",
        _error(
            408,
            "ModelTimeoutException",
            "The request took too long to process. Processing time exceeded the model timeout "
            "length.",
        ),
    ),
    "status-413": (E.CONTEXT_OVERFLOW, "botocore.exceptions.ClientError", {"nginx": 413}),
    "status-422": (E.INVALID_REQUEST, "botocore.exceptions.ClientError", {"status": 422}),
    # aws-samples/aws-genai-llm-chatbot#220's wording, with a Retry-After header.
    "status-429": (
        E.RATE_LIMIT,
        "botocore.errorfactory.ThrottlingException",
        {
            **_error(429, "ThrottlingException", _THROTTLED),
            "headers": {
                _TYPE: "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                "retry-after": "7",
            },
        },
    ),
    # The AWS Bedrock API reference's ServiceQuotaExceededException (HTTP 400).
    "status-400-quota": (
        E.QUOTA_EXCEEDED,
        "botocore.errorfactory.ServiceQuotaExceededException",
        _error(
            400,
            "ServiceQuotaExceededException",
            "Your request exceeds the service quota for your account. You can view your quotas "
            "at Viewing service quotas.",
        ),
    ),
    # The API reference's InternalServerException (HTTP 500).
    "status-500": (
        E.SERVER,
        "botocore.errorfactory.InternalServerException",
        _error(
            500, "InternalServerException", "An internal server error occurred. Retry your request."
        ),
    ),
    "status-502": (E.SERVER, "botocore.exceptions.ClientError", {"nginx": 502}),
    # The API reference's ServiceUnavailableException (HTTP 503).
    "status-503": (
        E.SERVER,
        "botocore.errorfactory.ServiceUnavailableException",
        _error(
            503,
            "ServiceUnavailableException",
            "The service isn't currently available. Try again later.",
        ),
    ),
    "status-504": (E.TIMEOUT, "botocore.exceptions.ClientError", {"nginx": 504}),
    "status-529": (E.RATE_LIMIT, "botocore.exceptions.ClientError", {"status": 529}),
    # An exception frame inside a 200 event stream (aws-samples/aws-genai-llm-chatbot#220).
    "stream-error": (
        E.RATE_LIMIT,
        "botocore.exceptions.EventStreamError",
        {
            "body": _START + _exception("throttlingException", _THROTTLED),
            "content_type": _STREAM,
            "mode": "stream",
        },
    ),
    "drop-mid-body": (
        E.TRANSPORT,
        "urllib3.exceptions.ProtocolError",
        {
            "body": _START + _exception("throttlingException", _THROTTLED)[:10],
            "content_type": _STREAM,
            "mode": "drop",
        },
    ),
    "drop-before-body": (
        E.TRANSPORT,
        "botocore.exceptions.ConnectionClosedError",
        {"json": {"output": {}}, "mode": "drop"},
    ),
    "stall": (E.TIMEOUT, "botocore.exceptions.ReadTimeoutError", {"mode": "stall"}),
    "stall-mid-stream": (
        E.TIMEOUT,
        "urllib3.exceptions.ReadTimeoutError",
        {"body": _START, "content_type": _STREAM, "mode": "stall_body"},
    ),
    "refused": (E.TRANSPORT, "botocore.exceptions.EndpointConnectionError", {"mode": "refused"}),
    "hang-up": (E.TRANSPORT, "botocore.exceptions.ConnectionClosedError", {"mode": "hang_up"}),
    # A 200 event stream that is not one (an HTML page): the frame's CRC fails.
    "malformed-200": (
        E.PROVIDER_ERROR,
        "botocore.eventstream.ChecksumMismatch",
        {"body": "<html><body>OK</body></html>", "content_type": _STREAM, "mode": "stream"},
    ),
}
STREAMING = {"stream-error", "drop-mid-body", "stall-mid-stream", "malformed-200"}

XFAIL: dict[tuple[str, str], str] = {}


#: The Retry-After of the 429 case, which the classification reads from the exception.
RETRY_AFTER = 7.0


def provoke(base_url, case_id, read_timeout):
    """Call Converse (ConverseStream for the stream cases) once, retries off; return the error."""
    client = _SESSION.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=base_url,
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        config=Config(
            retries={"total_max_attempts": 1, "mode": "standard"},
            read_timeout=read_timeout,
            connect_timeout=read_timeout,
        ),
    )
    request = {
        "modelId": "anthropic.claude-3-haiku-20240307-v1:0",
        "messages": [{"role": "user", "content": [{"text": "Hello"}]}],
    }
    try:
        if case_id in STREAMING:
            for _ in client.converse_stream(**request)["stream"]:
                pass
        else:
            client.converse(**request)
    except Exception as exc:
        return exc
    finally:
        client.close()
    return None
