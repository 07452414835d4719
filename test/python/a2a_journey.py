"""The A2A shopper journey with the official Python client (a2a-sdk), run by test/a2a-journey.test.ts.

Usage: a2a_journey.py <base_url> <api_key>

Creates the client from the agent card with the SDK's default ClientFactory (only an httpx client
carrying the API key as a bearer), sends "Find me trail running shoes under $120 and buy the best
one", answers the consent request with a data part carrying the consent fields, and prints one JSON
object with what each step returned (the test asserts on it).
"""

import asyncio
import json
import sys
import uuid

import httpx
from google.protobuf.json_format import MessageToDict, ParseDict

from a2a.client import ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import GetTaskRequest, Message, SendMessageRequest

REQUEST = 'Find me trail running shoes under $120 and buy the best one'


def message(parts, task=None):
    body = {'messageId': str(uuid.uuid4()), 'role': 'ROLE_USER', 'parts': parts}
    if task is not None:
        body['taskId'] = task['id']
        body['contextId'] = task['contextId']
    return SendMessageRequest(message=ParseDict(body, Message()))


async def only_task(client, request):
    """send_message yields StreamResponses; without streaming there is exactly one, holding the task."""
    events = [MessageToDict(e) async for e in client.send_message(request)]
    assert len(events) == 1, events
    assert 'task' in events[0], events[0]
    return events[0]['task']


async def main(base_url, api_key):
    http = httpx.AsyncClient(headers={'Authorization': f'Bearer {api_key}'}, timeout=120)
    client = await ClientFactory(ClientConfig(httpx_client=http)).create_from_url(base_url)
    card = MessageToDict(client._card)  # what the factory negotiated from
    try:
        asked = await only_task(client, message([{'text': REQUEST}]))
        consent_request = next(
            (p['data']['consent_request'] for p in asked['status']['message']['parts'] if 'data' in p),
            None,
        )
        statement = f"I agree to buy it for {consent_request['amount']:.2f} {consent_request['currency']}."
        done = await only_task(
            client,
            message([{'data': {'consent': {'granted': True, 'statement': statement}}}], task=asked),
        )
        again = MessageToDict(await client.get_task(GetTaskRequest(id=done['id'])))
    finally:
        await client.close()
        await http.aclose()
    print(json.dumps({'interfaces': card.get('supportedInterfaces'), 'asked': asked, 'done': done, 'again': again}))


if __name__ == '__main__':
    asyncio.run(main(sys.argv[1], sys.argv[2]))
