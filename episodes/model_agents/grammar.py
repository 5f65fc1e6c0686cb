"""The action grammar of ``--agent openai-compatible:MODEL``, and a parser that also reads
the formats open computer-use models were trained on.

Our prompt (:data:`PROMPT`) asks for::

    Thought: what I see and what I do next
    Action: click(412, 318)
    Action: type("Jane Doe")

Understood as well, so a model need not be re-prompted into ours:

* UI-TARS: ``Action: click(start_box='(412,318)')``, ``<|box_start|>(x,y)<|box_end|>``
  and ``<point>x y</point>`` boxes, ``left_double``, ``right_single``, ``hotkey(key='ctrl
  c')``, ``type(content='...')``, ``scroll(start_box=.., direction='down')``,
  ``drag(start_box=.., end_box=..)``, ``wait()``, ``finished(content='...')``;
* OpenCUA (pyautogui code): ``pyautogui.click(x=412, y=318)``, ``pyautogui.write(message=
  '...')``, ``pyautogui.hotkey('ctrl', 'c')``, ``pyautogui.press('enter')``,
  ``pyautogui.scroll(-5)``, ``pyautogui.doubleClick``, ``moveTo``, ``dragTo``,
  ``computer.wait()``, ``computer.terminate(status='success')``, in or out of a code block;
* Qwen-VL's computer_use function: ``<tool_call>{"name": "computer_use", "arguments":
  {"action": "left_click", "coordinate": [412, 318]}}</tool_call>`` (key with ``keys``,
  scroll with ``pixels``, ``terminate``, ``answer``);
* a bare JSON action of the agent API (``{"action": "left_click", "coordinate": [..]}``).

Coordinates are read as numbers and scaled by the caller (pixels, 0..1000 or 0..1).
:func:`parse_reply` returns the text, the actions (agent-API shape, coordinates still in the
model's space as floats), whether the model said it is done, or raises :class:`ParseError`.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

PROMPT = """You operate a clinic workstation (a Linux desktop, {width}x{height} pixels: a \
browser and a remote desktop-EHR window) to complete a healthcare administration task.
Each turn you get a screenshot. Answer in this form:

Thought: what you see and what you will do next (one or two sentences)
Action: ONE_ACTION
(more Action: lines are allowed; they are carried out in order)

Actions (x, y are pixels of the screenshot, origin top left):
  click(x, y)  double_click(x, y)  triple_click(x, y)  right_click(x, y)  middle_click(x, y)
  move(x, y)  drag(x1, y1, x2, y2)  scroll(x, y, "up"|"down"|"left"|"right", clicks)
  type("text")  key("ctrl+s")  (keys joined with +, e.g. key("Return"), key("ctrl+a"))
  wait(seconds)
  done("short summary")  when the task is complete

Task: {instruction}"""

DONE_NAMES = {"done", "finished", "finish", "terminate", "answer", "stop", "call_user",
              "fail"}
CLICKS = {"click": "left_click", "left_click": "left_click", "left_single": "left_click",
          "leftclick": "left_click", "tap": "left_click",
          "double_click": "double_click", "left_double": "double_click",
          "doubleclick": "double_click",
          "triple_click": "triple_click", "tripleclick": "triple_click",
          "right_click": "right_click", "right_single": "right_click",
          "rightclick": "right_click", "middle_click": "middle_click",
          "middleclick": "middle_click",
          "move": "mouse_move", "mouse_move": "mouse_move", "hover": "mouse_move",
          "moveto": "mouse_move"}
KEY_NAMES = {"hotkey", "key", "press", "keypress", "keydown", "key_press"}
TYPE_NAMES = {"type", "write", "typewrite", "input", "type_text"}
DRAG_NAMES = {"drag", "dragto", "left_click_drag", "select", "left_drag"}
NUMBER = r"-?\d+(?:\.\d+)?"


class ParseError(ValueError):
    """A reply with no action we can read (the message says what was seen)."""


@dataclass
class Parsed:
    text: str = ""
    actions: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False
    message: str | None = None


def _normalize(code: str) -> str:
    code = code.replace("<|box_start|>", "").replace("<|box_end|>", "")
    code = re.sub(r"<\|?point\|?>\s*\(?\s*(" + NUMBER + r")[\s,]+(" + NUMBER + r")\s*\)?\s*"
                  r"<\|?/point\|?>", r"(\1,\2)", code)
    code = re.sub(r"<bbox>\s*(" + NUMBER + r")[\s,]+(" + NUMBER + r")[\s,]+(" + NUMBER
                  + r")[\s,]+(" + NUMBER + r")\s*</bbox>", r"(\1,\2,\3,\4)", code)
    return code


def _point(value: Any) -> list[float] | None:
    """(x, y) from a number pair, a '(x,y)' string or a box (its centre)."""
    if isinstance(value, str):
        numbers = [float(n) for n in re.findall(NUMBER, value)]
    elif isinstance(value, list | tuple):
        numbers = [float(n) for n in value if isinstance(n, int | float)]
    else:
        return None
    if len(numbers) == 2:
        return numbers
    if len(numbers) == 4:
        return [(numbers[0] + numbers[2]) / 2, (numbers[1] + numbers[3]) / 2]
    return None


def _call_args(node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
    args = [ast.literal_eval(a) for a in node.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    return args, kwargs


def _keys(args: list[Any], kwargs: dict[str, Any]) -> str:
    raw = kwargs.get("key", kwargs.get("keys", kwargs.get("text", args if len(args) > 1
                                                              else (args or [""])[0])))
    if isinstance(raw, list | tuple):
        parts = [str(k) for k in raw]
    else:
        text = str(raw).strip()
        parts = re.split(r"\s*\+\s*|\s+", text) if "+" in text or " " in text else [text]
    return "+".join(p.lower() if p.isupper() and len(p) > 1 else p for p in parts if p)


def _from_call(name: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any] | str:
    """One call as an action dict, or ``"done"``."""
    name = name.rsplit(".", 1)[-1].lower()
    numbers = [a for a in args if isinstance(a, int | float) and not isinstance(a, bool)]
    if name in DONE_NAMES:
        return "done"
    point = (_point(kwargs.get("start_box")) or _point(kwargs.get("point"))
             or _point(kwargs.get("coordinate"))
             or (_point([kwargs["x"], kwargs["y"]]) if "x" in kwargs and "y" in kwargs else None)
             or (_point(numbers[:2]) if len(numbers) >= 2 else None)
             or next((p for p in (_point(a) for a in args if isinstance(a, str | list | tuple))
                      if p), None))
    if name == "click" and str(kwargs.get("button", "left")).lower() in ("right", "middle"):
        name = f"{str(kwargs['button']).lower()}_click"
    if name == "click" and int(kwargs.get("clicks", 1) or 1) in (2, 3):
        name = {2: "double_click", 3: "triple_click"}[int(kwargs["clicks"])]
    if name in CLICKS:
        action: dict[str, Any] = {"action": CLICKS[name]}
        if point is not None:
            action["coordinate"] = point
        elif CLICKS[name] == "mouse_move":
            raise ParseError(f"{name} needs a position")
        return action
    if name in TYPE_NAMES:
        text = kwargs.get("content", kwargs.get("text", kwargs.get("message",
                          kwargs.get("string", args[0] if args else None))))
        if not isinstance(text, str):
            raise ParseError(f"{name} needs text")
        return {"action": "type", "text": text.replace("\\n", "\n")}
    if name in KEY_NAMES:
        keys = _keys(args, kwargs)
        if not keys:
            raise ParseError(f"{name} needs a key")
        return {"action": "key", "text": keys}
    if name in DRAG_NAMES:
        end = (_point(kwargs.get("end_box")) or _point(kwargs.get("end_point"))
               or (_point(numbers[2:4]) if len(numbers) >= 4 else None))
        if end is None:  # pyautogui.dragTo(x, y): from where the mouse is
            if point is None:
                raise ParseError(f"{name} needs where to drag to")
            return {"action": "left_click_drag", "coordinate": point}
        return {"action": "left_click_drag", "start_coordinate": point, "coordinate": end}
    if name in ("scroll", "hscroll", "vscroll"):
        direction = kwargs.get("direction") or next(
            (a for a in args if isinstance(a, str) and a.lower() in
             ("up", "down", "left", "right")), None)
        amount = kwargs.get("clicks", kwargs.get("amount"))
        if direction is None:  # pyautogui.scroll(clicks): positive is up
            clicks = amount if amount is not None else (numbers[0] if len(numbers) in (1, 3)
                                                        else None)
            if clicks is None:
                raise ParseError("scroll needs a direction or a number of clicks")
            direction = ("left" if clicks > 0 else "right") if name == "hscroll" else (
                "up" if clicks > 0 else "down")
            amount = abs(clicks)
            point = _point(numbers[1:3]) if len(numbers) == 3 else (
                [kwargs["x"], kwargs["y"]] if "x" in kwargs and "y" in kwargs else None)
        elif amount is None:
            amount = numbers[2] if len(numbers) >= 3 else 3
        action = {"action": "scroll", "scroll_direction": str(direction).lower(),
                  "scroll_amount": max(1, min(30, int(abs(float(amount)))))}
        if point is not None:
            action["coordinate"] = point
        return action
    if name in ("wait", "sleep"):
        seconds = kwargs.get("seconds", kwargs.get("time", numbers[0] if numbers else 1))
        return {"action": "wait", "duration": max(0.0, min(30.0, float(seconds)))}
    raise ParseError(f"unknown action {name!r}")


def _from_json(obj: dict[str, Any]) -> dict[str, Any] | str:
    """A Qwen-VL tool call or a bare agent-API action."""
    if "arguments" in obj and isinstance(obj["arguments"], dict):
        obj = obj["arguments"]
    kind = str(obj.get("action", "")).lower()
    if kind in DONE_NAMES:
        return "done"
    if kind == "key" and isinstance(obj.get("keys"), list):
        return {"action": "key", "text": _keys(obj["keys"], {})}
    if kind in ("scroll", "hscroll") and "pixels" in obj:
        pixels = float(obj["pixels"])
        return _from_call(kind, [], {"clicks": pixels / 100 or (1 if pixels >= 0 else -1),
                                     **({"x": obj["coordinate"][0], "y": obj["coordinate"][1]}
                                        if obj.get("coordinate") else {})})
    if kind == "wait":
        return {"action": "wait", "duration": float(obj.get("time", obj.get("duration", 1)))}
    if kind in ("left_click", "right_click", "middle_click", "double_click", "triple_click",
                "mouse_move", "left_click_drag", "type", "key", "scroll", "hold_key",
                "left_mouse_down", "left_mouse_up", "cursor_position", "screenshot"):
        return {k: v for k, v in obj.items() if k in (
            "action", "coordinate", "start_coordinate", "text", "scroll_direction",
            "scroll_amount", "duration")}
    raise ParseError(f"unknown action {kind!r} in {json.dumps(obj)[:120]}")


def _json_objects(text: str) -> list[dict[str, Any]]:
    found = []
    for block in re.findall(r"<tool_call>\s*(.*?)\s*</tool_call>", text, re.S):
        try:
            found.append(json.loads(block))
        except json.JSONDecodeError as exc:
            raise ParseError(f"a <tool_call> that is not JSON: {exc}") from exc
    if found:
        return found
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            obj, _ = decoder.raw_decode(text[match.start():])
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and ("action" in obj or "arguments" in obj):
            found.append(obj)
    return found


def _calls(code: str) -> list[tuple[str, list[Any], dict[str, Any]]]:
    """Every call expression in ``code``, trying the whole then line by line."""
    def walk(tree: ast.AST) -> list[tuple[str, list[Any], dict[str, Any]]]:
        out = []
        for node in getattr(tree, "body", []):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                out.append((ast.unparse(node.value.func), *_call_args(node.value)))
        return out

    # "Action: click(1, 2)" is Python too (an annotation): take the prefixes off first
    code = re.sub(r"(?im)^\s*action\s*[:：]\s*", "", code)
    try:
        calls = walk(ast.parse(code.strip()))
        if calls:
            return calls
    except (SyntaxError, ValueError):
        pass
    out = []
    for line in code.splitlines():
        line = line.strip().rstrip(";")
        line = re.sub(r"^(?:Action|action|ACTION)\s*[:：]\s*", "", line)
        if not line or "(" not in line:
            continue
        try:
            out.extend(walk(ast.parse(line)))
        except (SyntaxError, ValueError):
            continue
    return out


def parse_reply(reply: str) -> Parsed:
    """The actions of one reply (see the module docstring for the formats)."""
    text = reply.strip()
    parsed = Parsed(text=text)
    normalized = _normalize(text)
    objects = _json_objects(normalized)
    items: list[dict[str, Any] | str] = []
    if objects:
        items = [_from_json(o) for o in objects]
        if any(item == "done" for item in items):
            parsed.message = next((str(o.get("arguments", o).get("text") or
                                   o.get("arguments", o).get("status") or "") for o in objects
                                   if isinstance(o.get("arguments", o), dict)), None)
    else:
        code_blocks = re.findall(r"```(?:python|py)?\s*\n(.*?)```", normalized, re.S)
        if code_blocks:
            code = "\n".join(code_blocks)
        else:
            marker = re.search(r"(?:^|\n)\s*Action\s*[:：]", normalized, re.I)
            code = normalized[marker.start():] if marker else normalized
        for name, args, kwargs in _calls(code):
            item = _from_call(name, args, kwargs)
            if item == "done":
                parsed.message = str(kwargs.get("content") or kwargs.get("status")
                                     or (args[0] if args else "") or "")
            items.append(item)
    if not items:
        raise ParseError("no action found; answer with 'Action: click(x, y)' or another "
                         "action of the grammar, or 'Action: done(\"summary\")'")
    for item in items:
        if item == "done":
            parsed.done = True
            break  # nothing after done is carried out
        assert isinstance(item, dict)
        parsed.actions.append(item)
    return parsed
