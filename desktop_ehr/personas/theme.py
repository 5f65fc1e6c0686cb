"""The two looks, as Qt style sheets keyed on the ``role`` property widgets carry.

Hyperspace: a dark teal-blue toolbar, slate workspace tabs, the dark Storyboard column and
pale blue section bars. PowerChart: Windows-classic greys, a blue-grey gradient Banner Bar,
a white left Menu with a blue selection. Colours evoke the products' training clients; no
artwork or logos are copied.
"""

from __future__ import annotations

COMMON = """
* { font-family: "DejaVu Sans", "Liberation Sans", Arial; font-size: 12px; }
QLabel[role="error"] { color: #b00020; font-weight: bold; padding: 2px 0; }
QLabel[role="caption"] { color: #555; }
QLabel[role="alertCaption"] { color: #b00020; font-weight: bold; }
QLabel[role="helper"] { color: #0b4f9c; background: #eef5fc; border: 1px solid #b8d3ee;
    padding: 2px 6px; }
QLabel[role="fieldLabel"] { color: #333; font-weight: bold; }
QLabel[role="dialogTitle"] { font-size: 15px; font-weight: bold; color: #17324d; }
QLabel[role="dragGhost"] { background: #fffbe6; border: 1px solid #c9a400; padding: 4px 8px; }
QLineEdit[invalid="true"], QComboBox[invalid="true"] { border: 2px solid #d32f2f;
    background: #fff3f3; }
QTableView, QTreeView, QListWidget { gridline-color: #d7dde4; selection-background-color: #cfe3f7;
    selection-color: #000; alternate-background-color: #f5f8fb; }
QHeaderView::section { background: #e4e9ef; border: 0; border-right: 1px solid #c6ced8;
    border-bottom: 1px solid #c6ced8; padding: 3px 5px; font-weight: bold; color: #26384a; }
QPushButton { padding: 3px 10px; min-height: 18px; }
"""

HYPERSPACE = COMMON + """
QWidget#mainWindowCentral, QStackedWidget#workspace\\.stack { background: #e8edf2; }
QWidget[role="loginBackground"] { background: qlineargradient(x1:0,y1:0,x2:0,y2:1,
    stop:0 #1b4a68, stop:1 #0f2f45); }
QFrame[role="loginCard"] { background: #f7f9fb; border: 1px solid #0c2638; border-radius: 6px; }
QLabel[role="loginTitle"] { font-size: 20px; font-weight: bold; color: #14506f; }
QFrame[role="hsToolbar"] { background: qlineargradient(x1:0,y1:0,x2:0,y2:1, stop:0 #2a6a8c,
    stop:1 #174a67); border-bottom: 1px solid #0d3147; }
QFrame[role="hsToolbar"] QPushButton { color: white; background: transparent; border: 1px solid
    transparent; padding: 4px 9px; font-weight: bold; }
QFrame[role="hsToolbar"] QPushButton:hover { background: rgba(255,255,255,0.15);
    border: 1px solid rgba(255,255,255,0.35); border-radius: 3px; }
QFrame[role="hsToolbar"] QPushButton#toolbar\\.menu { background: #e98a15; color: white;
    border-radius: 3px; border: 1px solid #b8650a; }
QFrame[role="hsToolbar"] QLabel { color: #e3f0f8; }
QTabBar#workspace\\.tabs { background: #1d3c52; }
QTabBar#workspace\\.tabs::tab { background: #36586f; color: #dfeaf2; padding: 5px 14px;
    margin-right: 2px; border-top-left-radius: 4px; border-top-right-radius: 4px; min-width: 90px; }
QTabBar#workspace\\.tabs::tab:selected { background: #e8edf2; color: #10324a; font-weight: bold; }
QFrame[role="storyboard"] { background: qlineargradient(x1:0,y1:0,x2:0,y2:1, stop:0 #243f57,
    stop:1 #2f4f69); }
QFrame[role="storyboard"] QLabel { color: #e6eef5; }
QFrame[role="storyboard"] QLabel[role="sbName"] { font-size: 16px; font-weight: bold; color: white; }
QFrame[role="storyboard"] QLabel[role="sbHeading"] { color: #9fc3dd; font-size: 10px; font-weight: bold;
    letter-spacing: 1px; padding-top: 5px; }
QFrame[role="storyboard"] QLabel[role="sbAllergy"] { background: #c62828; color: white; padding: 3px 5px;
    font-weight: bold; border-radius: 2px; }
QFrame[role="storyboard"] QLabel[role="sbNoAllergy"] { background: #3e6a3e; color: white; padding: 3px 5px; }
QFrame[role="storyboard"] QLabel[role="sbBadge"] { background: #f2c230; color: #2a2100; padding: 2px 5px;
    font-weight: bold; border-radius: 2px; }
QFrame[role="storyboard"] QLabel[role="sbCode"] { background: #ffffff; color: #1d3c52; padding: 2px 5px;
    font-weight: bold; border-radius: 2px; }
QFrame[role="storyboard"] QLabel[role="sbPhoto"] { background: #7aa7c7; color: white; font-size: 22px; font-weight: bold;
    border-radius: 30px; }
QTabBar#activity\\.tabs, QTabBar#home\\.tabs { background: #d3dde7; }
QTabBar#activity\\.tabs::tab, QTabBar#home\\.tabs::tab { background: #d3dde7; color: #1f3b53;
    padding: 6px 12px; border-right: 1px solid #b7c6d4; }
QTabBar#activity\\.tabs::tab:selected, QTabBar#home\\.tabs::tab:selected { background: white;
    border-top: 3px solid #e98a15; font-weight: bold; }
QFrame[role="sectionHeader"], QFrame[role="pageToolbar"] { background: qlineargradient(x1:0,y1:0,
    x2:0,y2:1, stop:0 #f4f8fb, stop:1 #dce6ef); border-bottom: 1px solid #b9c8d6; }
QLabel[role="sectionTitle"] { font-weight: bold; color: #14506f; font-size: 13px; }
QLabel[role="navSectionTitle"] { font-weight: bold; color: white; background: #2e6a8e;
    padding: 4px 8px; font-size: 13px; }
QFrame[role="panel"] { background: white; border: 1px solid #c3d0dc; }
QFrame[role="dialogHeader"] { background: #dbe8f3; border-bottom: 1px solid #9fb9cf; }
QFrame[role="dialogFooter"] { background: #eef2f6; border-top: 1px solid #c3d0dc; }
QListWidget#navigator\\.sections { background: #f1f5f9; border-right: 1px solid #b9c8d6;
    font-weight: bold; color: #1f3b53; }
QListWidget#navigator\\.sections::item { padding: 7px 6px; border-bottom: 1px solid #d6dfe8; }
QListWidget#navigator\\.sections::item:selected { background: #2e6a8e; color: white; }
QPushButton { background: qlineargradient(x1:0,y1:0,x2:0,y2:1, stop:0 #ffffff, stop:1 #e3e9ef);
    border: 1px solid #9fb1c2; border-radius: 3px; color: #1b3347; }
QPushButton:hover { border-color: #2e6a8e; }
QPushButton:disabled { color: #9aa6b1; }
QPushButton[role="primary"], QPushButton[role="sign"] { background: qlineargradient(x1:0,y1:0,
    x2:0,y2:1, stop:0 #5aa84f, stop:1 #3b8a32); color: white; border: 1px solid #2d6b26;
    font-weight: bold; }
QPushButton[role="primary"]:disabled, QPushButton[role="sign"]:disabled { background: #b9cdb6;
    border-color: #9db39a; }
QPushButton[role="quickPick"] { background: #eef5fc; border: 1px solid #8fb4d6; color: #0b4f9c; }
QFrame[role="hsStatus"] { background: #c9d6e2; border-top: 1px solid #9fb1c2; }
QFrame[role="hsStatus"] QLabel { color: #1f3b53; font-size: 11px; }
QLabel[role="dropZone"] { border: 2px dashed #7d9bb5; color: #42627d; background: #f3f7fb; }
"""

POWERCHART = COMMON + """
QWidget#mainWindowCentral { background: #ece9d8; }
QWidget[role="loginBackground"] { background: qlineargradient(x1:0,y1:0,x2:1,y2:1,
    stop:0 #dfe8f3, stop:1 #9fb8d5); }
QFrame[role="loginCard"] { background: #f3f3f3; border: 1px solid #6c87a8; }
QLabel[role="loginTitle"] { font-size: 20px; font-weight: bold; color: #1d3f6e; }
QMenuBar { background: #f1f1f1; border-bottom: 1px solid #c8c8c8; }
QMenuBar::item { padding: 3px 9px; background: transparent; }
QMenuBar::item:selected { background: #cfe0f4; }
QFrame[role="pcToolbar"] { background: qlineargradient(x1:0,y1:0,x2:0,y2:1, stop:0 #fbfbfb,
    stop:1 #dde3ea); border-bottom: 1px solid #aab6c4; }
QFrame[role="pcToolbar"] QPushButton { background: transparent; border: 1px solid transparent;
    padding: 3px 7px; color: #1b2b3c; }
QFrame[role="pcToolbar"] QPushButton:hover { background: #e3eefa; border: 1px solid #9bb7d7; }
QTabBar#chart\\.tabs { background: #d8dde4; }
QTabBar#chart\\.tabs::tab { background: #e4e8ed; border: 1px solid #a8b3c0; border-bottom: 0;
    padding: 4px 14px; margin-right: 1px; color: #22344a; min-width: 90px; }
QTabBar#chart\\.tabs::tab:selected { background: #ffffff; font-weight: bold; }
QFrame[role="banner"] { background: qlineargradient(x1:0,y1:0,x2:0,y2:1, stop:0 #e9f1fa,
    stop:1 #c9d9ec); border-bottom: 2px solid #7f9cc0; }
QFrame[role="banner"] QLabel { color: #14253a; }
QLabel[role="bannerName"] { font-size: 16px; font-weight: bold; color: #0d2a4f; }
QLabel[role="bannerAllergy"] { color: #c00000; font-weight: bold; }
QLabel[role="bannerCode"] { color: #7a1f9c; font-weight: bold; }
QLabel[role="bannerIsolation"] { color: #9a5b00; font-weight: bold; }
QListWidget#chart\\.menu { background: #ffffff; border: 0; border-right: 1px solid #a8b3c0;
    color: #1a2f4a; }
QListWidget#chart\\.menu::item { padding: 5px 8px; border-bottom: 1px solid #eef1f5; }
QListWidget#chart\\.menu::item:selected { background: #316ac5; color: white; }
QListWidget#organizer\\.menu { background: #ffffff; border-right: 1px solid #a8b3c0; }
QListWidget#organizer\\.menu::item { padding: 6px 8px; }
QListWidget#organizer\\.menu::item:selected { background: #316ac5; color: white; }
QLabel[role="menuHeader"] { background: qlineargradient(x1:0,y1:0,x2:0,y2:1, stop:0 #5b7fae,
    stop:1 #3d5f8d); color: white; font-weight: bold; padding: 4px 8px; }
QFrame[role="pageHeader"] { background: qlineargradient(x1:0,y1:0,x2:0,y2:1, stop:0 #f7f7f7,
    stop:1 #dfe3e8); border-bottom: 1px solid #a8b3c0; }
QLabel[role="pageTitle"] { font-size: 14px; font-weight: bold; color: #1d3f6e; }
QFrame[role="sectionHeader"], QFrame[role="pageToolbar"] { background: #f3f4f6;
    border-bottom: 1px solid #c8ced6; }
QLabel[role="sectionTitle"] { font-weight: bold; color: #1d3f6e; }
QLabel[role="navSectionTitle"] { font-weight: bold; color: white; background: #3d5f8d;
    padding: 4px 8px; }
QFrame[role="panel"] { background: white; border: 1px solid #b7c0cc; }
QFrame[role="dialogHeader"] { background: #e9eef5; border-bottom: 1px solid #a8b3c0; }
QFrame[role="dialogFooter"] { background: #f0f0f0; border-top: 1px solid #c8ced6; }
QPushButton { background: qlineargradient(x1:0,y1:0,x2:0,y2:1, stop:0 #fdfdfd, stop:1 #e2e2e2);
    border: 1px solid #8a98a8; border-radius: 2px; color: #111; }
QPushButton:hover { background: #e8f1fb; border-color: #316ac5; }
QPushButton:disabled { color: #9a9a9a; }
QPushButton[role="primary"] { font-weight: bold; color: #0d3b78; }
QPushButton[role="sign"] { background: qlineargradient(x1:0,y1:0,x2:0,y2:1, stop:0 #fdfdfd,
    stop:1 #d7e6f7); font-weight: bold; color: #0d3b78; border: 1px solid #316ac5; }
QPushButton[role="quickPick"] { background: #ffffff; border: 1px solid #9bb7d7; color: #0d3b78; }
QFrame[role="pcStatus"] { background: #ece9d8; border-top: 1px solid #b5b2a2; }
QFrame[role="pcStatus"] QLabel { color: #333; font-size: 11px; }
QLabel[role="dropZone"] { border: 2px dashed #7f9cc0; color: #3d5f8d; background: #f4f8fc; }
QListWidget#navigator\\.sections { background: #ffffff; border-right: 1px solid #a8b3c0; }
QListWidget#navigator\\.sections::item:selected { background: #316ac5; color: white; }
"""


def stylesheet(persona: str) -> str:
    return {"hyperspace": HYPERSPACE, "powerchart": POWERCHART}[persona]
