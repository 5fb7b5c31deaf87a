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
        blocking = os.getenv("ASCEND_LAUNCH_BLOCKING", "0")
        subprocess.run(cmd, env={**env, "ASCEND_LAUNCH_BLOCKING": blocking})
        return ["CUDA_VISIBLE_DEVICES"]
