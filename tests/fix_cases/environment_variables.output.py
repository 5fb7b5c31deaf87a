import os
import subprocess


class Runner:
    """monai auto3dseg: `device_setting` is a dict its callers fill in."""

    def __init__(self, device_info):
        self.device_setting = device_info

    def launch(self, cmd):
        env = os.environ.copy()
        env["ASCEND_RT_VISIBLE_DEVICES"] = str(self.device_setting["CUDA_VISIBLE_DEVICES"])
        env["HCCL_SOCKET_IFNAME"] = "eth0"
        # one setting passed on: one finding, whose fix renames both (axolotl's tests)
        env["ASCEND_RT_VISIBLE_DEVICES"] = env.get("ASCEND_RT_VISIBLE_DEVICES", "0,1")
        blocking = os.getenv("ASCEND_LAUNCH_BLOCKING", "0")
        subprocess.run(cmd, env={**env, "ASCEND_LAUNCH_BLOCKING": blocking})
        return ["CUDA_VISIBLE_DEVICES"]
