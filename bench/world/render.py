"""Path-traces a scene with Mitsuba 3 on the CPU: the board print on a thin board on
a wooden table, marbles of glass (refracting, throwing caustics) or clay, turned
wooden and plastic figures, hats and disks as meshes of revolution, an arm, a warm
lamp over the table, a window of daylight and a dim room. Returns linear light
through a pinhole; the lens and sensor are ``camera.develop``'s.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import cv2
import mitsuba as mi
import numpy as np

from bench.world.camera import pinhole_size
from bench.world.change import ARM_REACH, ARM_RISE
from bench.world.data import srgb, world
from bench.world.printing import board_print, table_top

#: the board's thickness, mm
BOARD_MM = 3.0
#: segments round a mesh of revolution
SEGMENTS = 48
#: light bounces traced (glass needs several)
MAX_DEPTH = 8


def variant() -> str:
    """LLVM's vectorised CPU variant where libLLVM is found, else the scalar one."""
    for name in ("llvm_ad_rgb", "scalar_rgb"):
        try:
            mi.set_variant(name)
            return name
        except (ImportError, AttributeError, RuntimeError):
            continue
    raise RuntimeError("no CPU variant of Mitsuba 3 could be loaded")


def kelvin(t: float) -> np.ndarray:
    """Linear RGB of a black body at ``t`` kelvin, luminance 1 (Tanner Helland's fit
    of the Planckian locus in sRGB)."""
    t = t / 100
    r = 255 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.12 if t <= 66 else 288.12 * (t - 60) ** -0.0755
    b = 255 if t >= 66 else (0 if t <= 19 else 138.52 * math.log(t - 10) - 305.04)
    rgb = np.array(srgb([min(max(v, 0), 255) for v in (r, g, b)]))
    return rgb / (rgb @ [0.2126, 0.7152, 0.0722])


def lathe(profile, cache: Path) -> str:
    """A PLY mesh of ``profile`` ([radius, height] pairs) turned round the z axis; each
    band has its own vertices, so the profile's corners stay sharp."""
    key = hashlib.sha1(repr(profile).encode()).hexdigest()[:16]
    path = cache / f"lathe-{key}.ply"
    if path.exists():
        return str(path)
    angles = np.linspace(0, 2 * math.pi, SEGMENTS, endpoint=False)
    verts, normals, faces = [], [], []
    for (r0, z0), (r1, z1) in zip(profile, profile[1:]):
        base = len(verts)
        # the band's outward normal in the (radius, height) plane
        nr, nz = z1 - z0, r0 - r1
        size = math.hypot(nr, nz)
        for r, z in ((r0, z0), (r1, z1)):
            verts += [(r * math.cos(a), r * math.sin(a), z) for a in angles]
            normals += [
                (nr / size * math.cos(a), nr / size * math.sin(a), nz / size) for a in angles
            ]
        for i in range(SEGMENTS):
            j = (i + 1) % SEGMENTS
            a, b, c, d = base + i, base + j, base + SEGMENTS + j, base + SEGMENTS + i
            faces += [(a, b, c), (a, c, d)]
    if profile[0][0] > 0:  # a flat foot
        centre = len(verts)
        r, z = profile[0]
        verts += [(0.0, 0.0, z)] + [(r * math.cos(a), r * math.sin(a), z) for a in angles]
        normals += [(0.0, 0.0, -1.0)] * (SEGMENTS + 1)
        faces += [
            (centre, centre + 1 + (i + 1) % SEGMENTS, centre + 1 + i) for i in range(SEGMENTS)
        ]
    lines = [
        "ply",
        "format ascii 1.0",
        f"element vertex {len(verts)}",
        "property float x",
        "property float y",
        "property float z",
        "property float nx",
        "property float ny",
        "property float nz",
        f"element face {len(faces)}",
        "property list uchar int vertex_indices",
        "end_header",
    ]
    lines += [
        f"{x:.4f} {y:.4f} {z:.4f} {a:.4f} {b:.4f} {c:.4f}"
        for (x, y, z), (a, b, c) in zip(verts, normals)
    ]
    lines += [f"3 {a} {b} {c}" for a, b, c in faces]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _material(kind: str, colour) -> dict:
    rgb = {"type": "rgb", "value": list(colour)}
    if kind == "glass":
        return {"type": "dielectric", "int_ior": 1.5, "specular_transmittance": rgb}
    if kind == "plastic":
        return {"type": "roughplastic", "alpha": 0.12, "diffuse_reflectance": rgb}
    if kind == "wood":
        return {"type": "roughplastic", "alpha": 0.35, "int_ior": 1.45, "diffuse_reflectance": rgb}
    return {"type": "diffuse", "reflectance": rgb}  # clay, card, skin's fallback


def scene_dict(game, scene, cache: Path, spp: int, crop=None) -> dict:
    """The Mitsuba scene of ``scene``; with ``crop`` (x, y, width, height of the
    pinhole picture) the film holds only that rectangle."""
    T = mi.ScalarTransform4f
    table = scene.set_up
    looks = world()["games"][game.name]
    rng = np.random.default_rng([table.seed, 48])
    left, bottom, right, top = table.extent
    cx, cy = (left + right) / 2, (bottom + top) / 2
    prints = cache / f"print-{table.game}-{table.board}-{table.seed}-{len(table.markers)}.png"
    if not prints.exists():
        cv2.imwrite(str(prints), board_print(game, table, rng)[::-1])
    wood = cache / f"table-{table.seed}.png"
    if not wood.exists():
        cv2.imwrite(str(wood), table_top(table.table_wood, rng)[::-1])
    margin = world()["table"]["margin"]
    cam = table.camera
    rw, rh = pinhole_size(cam)
    d: dict = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": MAX_DEPTH},
        "sensor": {
            "type": "perspective",
            "fov_axis": "x",
            "fov": math.degrees(2 * math.atan(rw / 2 / cam.focal)),
            "to_world": T().look_at(
                origin=list(cam.position), target=list(cam.target), up=list(cam.up)
            ),
            "near_clip": 10.0,
            "far_clip": 20000.0,
            "film": _film(rw, rh, crop),
            "sampler": {
                "type": "independent",
                "sample_count": spp,
                "seed": int(table.seed % 2**31),
            },
        },
        "board": {
            "type": "rectangle",
            "to_world": T()
            .translate([cx, cy, 0.0])
            .scale([(right - left) / 2, (top - bottom) / 2, 1]),
            "bsdf": {
                "type": "roughplastic",
                "alpha": 0.3,
                "int_ior": 1.45,
                "diffuse_reflectance": {"type": "bitmap", "filename": str(prints)},
            },
        },
        "board_edge": {
            "type": "cube",
            "to_world": T()
            .translate([cx, cy, -BOARD_MM / 2 - 0.05])
            .scale([(right - left) / 2, (top - bottom) / 2, BOARD_MM / 2]),
            "bsdf": {
                "type": "diffuse",
                "reflectance": {"type": "rgb", "value": list(srgb([200, 180, 150]))},
            },
        },
        "table": {
            "type": "rectangle",
            "to_world": T()
            .translate([cx, cy, -BOARD_MM])
            .scale([(right - left) / 2 + margin, (top - bottom) / 2 + margin, 1]),
            "bsdf": {
                "type": "roughplastic",
                "alpha": 0.2,
                "diffuse_reflectance": {"type": "bitmap", "filename": str(wood)},
            },
        },
    }
    d.update(_lights(table, (cx, cy)))
    for n, piece in enumerate(scene.pieces):
        d.update(_piece(f"piece{n}", piece, looks, table.glass, cache))
    if scene.arm is not None:
        d.update(_arm(scene.arm, cache))
    return d


def _film(width: int, height: int, crop) -> dict:
    film = {"type": "hdrfilm", "width": width, "height": height, "rfilter": {"type": "gaussian"}}
    if crop is not None:
        x, y, w, h = crop
        film.update(crop_offset_x=x, crop_offset_y=y, crop_width=w, crop_height=h)
    return film


def _piece(key: str, piece, looks: dict, glass: bool, cache: Path) -> dict:
    """The shapes of one piece, by name in the scene. A glass marble is clear glass
    round a coloured core, as most are: tinted glass alone shows the dark table
    through it, not its colour."""
    T = mi.ScalarTransform4f
    spec = looks["tokens"][piece.name]
    colour = srgb(spec["colour"])
    x, y = piece.xy
    if spec["shape"] == "marble":
        r = looks["marble_radius"]
        centre = [x, y, piece.z + r]

        def ball(radius: float, bsdf: dict) -> dict:
            return {"type": "sphere", "center": centre, "radius": radius, "bsdf": bsdf}

        if not glass:
            return {key: ball(r, _material("clay", colour))}
        return {
            key: ball(r, _material("glass", [1.0, 1.0, 1.0])),
            f"{key}_core": ball(r * 0.6, _material("plastic", colour)),
        }
    return {
        key: {
            "type": "ply",
            "filename": lathe(spec["shape"], cache),
            "to_world": T().translate([x, y, piece.z]).rotate([0, 0, 1], piece.turn),
            "bsdf": _material(spec["material"], colour),
        }
    }


def _lights(table, centre) -> dict:
    T = mi.ScalarTransform4f
    lt = table.light
    share = lt.window_share
    lamp_area = lt.lamp_side**2
    lamp = kelvin(lt.lamp_kelvin) * (1 - share) * lt.lamp[2] ** 2 / lamp_area
    wx, wy, wz = lt.window
    to_window = np.array([wx - centre[0], wy - centre[1], wz])
    dist = float(np.linalg.norm(to_window))
    window = kelvin(lt.window_kelvin) * share * dist**2 / (lt.window_side**2 * (wz / dist))
    return {
        "lamp": {
            "type": "rectangle",
            "to_world": T().translate(list(lt.lamp)).rotate([1, 0, 0], 180).scale(lt.lamp_side / 2),
            "emitter": {"type": "area", "radiance": {"type": "rgb", "value": lamp.tolist()}},
        },
        "window": {
            "type": "rectangle",
            "to_world": T()
            .look_at(origin=[wx, wy, wz], target=[centre[0], centre[1], 0.0], up=[0, 0, 1])
            .scale(lt.window_side / 2),
            "emitter": {"type": "area", "radiance": {"type": "rgb", "value": window.tolist()}},
        },
        "room": {
            "type": "constant",
            "radiance": {
                "type": "rgb",
                "value": (kelvin(lt.room_kelvin) * lt.room / math.pi).tolist(),
            },
        },
    }


def _arm(arm, cache: Path) -> dict:
    """A hand (a flattened ellipsoid) and the forearm and sleeve rising from it
    towards the player."""
    T = mi.ScalarTransform4f
    spec = world()["hand"]
    length, width, thick = spec["hand_size"]
    r = spec["arm_radius"]
    hx, hy, hz = arm.hand
    heading = math.degrees(math.atan2(arm.towards[1], arm.towards[0]))
    ball = (
        [[0.0, -1.0]]
        + [[math.sin(a), -math.cos(a)] for a in np.linspace(0.2, math.pi - 0.2, 10)]
        + [[0.0, 1.0]]
    )
    skin = _material("clay", srgb(list(arm.skin)))
    sleeve = _material("clay", srgb(list(arm.sleeve)))
    tube = lambda a, b: [[r, a], [r, b]]  # noqa: E731
    along = T().translate([hx, hy, hz]).rotate([0, 0, 1], heading).rotate([0, 1, 0], 90 - ARM_RISE)
    return {
        "hand": {
            "type": "ply",
            "filename": lathe(ball, cache),
            "to_world": T()
            .translate([hx, hy, hz])
            .rotate([0, 0, 1], heading)
            .scale([length / 2, width / 2, thick / 2]),
            "bsdf": skin,
        },
        "forearm": {
            "type": "ply",
            "filename": lathe(tube(length * 0.4, 300), cache),
            "to_world": along,
            "bsdf": skin,
        },
        "sleeve": {
            "type": "ply",
            "filename": lathe(tube(300, ARM_REACH), cache),
            "to_world": along.scale([1.15, 1.15, 1]),
            "bsdf": sleeve,
        },
    }
