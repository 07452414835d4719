"""The shopper journey over MCP with the official Python SDK (`mcp` on PyPI), as a newcomer writes it.

Usage: mcp_journey.py BASE_URL API_KEY TAG
  Runs "find me trail running shoes under $120 and buy the best one" to an order: run_commerce_runtime
  (merchant agents subscribed to TAG answer) → plan_checkout → confirm_checkout (with the user's
  consent) → get_checkout, and prints one JSON object with what each step answered.
Usage: mcp_journey.py BASE_URL BAD_KEY --bad-key
  Connects with a key the gateway refuses and prints {"error": "<the message the SDK raised>"}.

Driven by test/mcp-journey.test.ts; every wait is bounded (httpx timeouts, the tool's wait_s).
"""

import asyncio
import json
import sys

import httpx2
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client

ASK = "find me trail running shoes under $120 and buy the best one"


def structured(result):
    """The tool's answer: structured_content on success; the {error, message} text on an error."""
    if result.is_error:
        raise RuntimeError(f"tool error: {result.content[0].text}")
    return result.structured_content


async def journey(base: str, key: str, tag: str) -> dict:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=90)) as http:
        async with streamable_http_client(f"{base}/mcp", http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = sorted(t.name for t in (await session.list_tools()).tools)
                prompt = await session.get_prompt("buy_flow", {"request": ASK})

                runtime = structured(await session.call_tool(
                    "run_commerce_runtime", {"intent": ASK, "intent_tags": [tag], "wait_s": 45}))
                token = runtime["match_token"]
                plan = structured(await session.call_tool("plan_checkout", {
                    "match_token_id": token["match_token_id"],
                    "buyer_agent_id": "python-shopper",
                    "ship_to_name": "Ada Lovelace", "ship_to_line1": "1 Main St",
                    "ship_to_city": "Springfield", "ship_to_country": "US",
                }))
                # The user saw the plan and said yes: only now is the checkout confirmed.
                confirmed = structured(await session.call_tool("confirm_checkout", {
                    "checkout_id": plan["checkout_id"],
                    "consent_granted": True,
                    "consent_statement": f"Yes, buy {plan['line_items'][0]['title']} for {plan['total']} {plan['currency']}.",
                    "amount": plan["total"],
                    "currency": plan["currency"],
                }))
                final = structured(await session.call_tool("get_checkout", {"checkout_id": plan["checkout_id"]}))
                return {
                    "tools": tools,
                    "prompt": prompt.messages[0].content.text,
                    "runtime": runtime,
                    "plan": plan,
                    "confirmed": confirmed,
                    "checkout": final,
                }


async def bad_key(base: str, key: str) -> dict:
    headers = {"Authorization": f"Bearer {key}"}
    try:
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(10)) as http:
            async with streamable_http_client(f"{base}/mcp", http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
    except MCPError as err:
        return {"error": str(err), "kind": "MCPError"}
    except Exception as err:  # the SDK may wrap it (e.g. an exception group): report what a user sees
        return {"error": repr(err), "kind": type(err).__name__}
    return {"error": None}


def main() -> None:
    base, key = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3 and sys.argv[3] == "--bad-key":
        out = asyncio.run(bad_key(base, key))
    else:
        out = asyncio.run(journey(base, key, sys.argv[3]))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
